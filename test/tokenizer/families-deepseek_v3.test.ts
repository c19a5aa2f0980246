// deepseek_v3's tokenizer against HF's: see family-goldens.ts.
import { familyTests } from "./family-goldens.ts";

familyTests("deepseek_v3");
