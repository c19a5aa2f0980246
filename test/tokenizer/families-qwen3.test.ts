// qwen3's tokenizer against HF's: see family-goldens.ts.
import { familyTests } from "./family-goldens.ts";

familyTests("qwen3");
