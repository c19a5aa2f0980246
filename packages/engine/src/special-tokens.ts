/**
 * The Qwen3 special ids the engine acts on. The engine serves Qwen3's tokenizer, whose
 * generation_config lists both `<|im_end|>` and `<|endoftext|>` as EOS.
 */
export const IM_START = 151644;
export const IM_END = 151645;
export const ENDOFTEXT = 151643;
export const EOS_IDS: readonly number[] = [IM_END, ENDOFTEXT];
