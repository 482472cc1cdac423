/**
 * English's note for a local-network login posted without scripts, which the
 * edge answers itself (server/edge/no-script/no-script-messages.ts): kept
 * for the edge until server/ speaks the catalogue (issue 31), then this file
 * goes. The page says it from the catalogue (`noScript.localNetwork`).
 */
export const NO_SCRIPT_TEXTS = Object.freeze({
  LOCAL_NETWORK: 'Signing in on the local network needs JavaScript. Please turn it on and reload the page.'
})
