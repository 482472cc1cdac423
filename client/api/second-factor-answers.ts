/*
 * The second-factor calls' answers, parsed at the boundary: kept in common/
 * since the edge reads the code step's alike when it answers a form posted
 * without scripts.
 */
export * from '../../common/second-factor-answers.js'
