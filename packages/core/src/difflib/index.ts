/** Public surface of the difflib port (tasksets import from here). */
export {
  codePoints,
  matchingBlocks,
  popularElements,
  quickRatio,
  realQuickRatio,
  sequenceMatcherRatio,
  stringMatcher,
} from "./ratio.ts";
export { type MatchingBlock, SequenceMatcher, type SequenceMatcherOptions } from "./sequence-matcher.ts";
