export { BUILTIN_JUDGE_IDS } from "./builtins.ts";
export type { JudgeCallRecord } from "./call.ts";
export {
  type CompleteOptions,
  defineJudge,
  type JudgeContext,
  type JudgeDefinition,
  type JudgeInstance,
  type JudgeReply,
  type JudgeValue,
  judgeRewardName,
} from "./judge.ts";
export { REFERENCE_PROMPT, referenceVerdict } from "./reference.ts";
export { RUBRIC_PROMPT } from "./rubric.ts";
export { DEFAULT_JUDGE_MODEL, type JudgeConfig, type JudgeView } from "./schema.ts";
export { fillTemplate } from "./template.ts";
export { parseJudgeChoice } from "./verdict.ts";
export { judgeAnswer, judgeQuestion, judgeResponse, promptText, transcript } from "./view.ts";
