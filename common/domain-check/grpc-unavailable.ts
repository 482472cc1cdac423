/**
 * gRPC's UNAVAILABLE, in a module of its own: the page's first load reads
 * only this code (a domain check whose chunk does not load,
 * client/domain-check/check-domain.ts), and a module the lazy domain-check
 * chunk shares with the first load would travel in the first load whole
 * (test/build/bundle-budget.integration.test.ts). The table that holds it:
 * common/domain-check/grpc-status.ts.
 */
export const GRPC_UNAVAILABLE = 14
