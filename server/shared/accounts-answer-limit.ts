/**
 * ACCOUNTS_ANSWER_LIMIT_BYTES: the largest answer the edge reads from the
 * accounts service, as sent and as decoded. The spec's answers are a few
 * hundred bytes and passkey options a few thousand, so 64 KiB leaves room;
 * the range keeps a typo from refusing every answer or letting one answer
 * take a process's memory. Here because the conformance check reads answers
 * within the same limit as the edge it stands in for.
 */
export const DEFAULT_ACCOUNTS_ANSWER_LIMIT_BYTES = 64 * 1024
export const ACCOUNTS_ANSWER_LIMIT_RANGE = { min: 1024, max: 16 * 1024 * 1024 } as const
