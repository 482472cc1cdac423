/*
 * The accounts calls' answers, parsed at the boundary: kept in common/ since
 * the edge reads them alike when it answers a form posted without scripts.
 */
export * from '../../common/accounts-answers.js'
