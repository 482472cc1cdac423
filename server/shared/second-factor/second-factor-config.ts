import { readBoolean, type Env } from '../env-parsing.js'

/** SECOND_FACTOR and SECOND_FACTOR_REMEMBER_BROWSER (docs/second-factor.md), read alike by the edge and the reference service. */
export interface SecondFactorSettings {
  /** Whether the accounts service answers the second-factor calls (and the page shows their steps). */
  readonly enabled: boolean
  /** Whether the code step may set the `second_factor_browser` cookie ("Don't ask again on this browser for 30 days"). */
  readonly rememberBrowser: boolean
}

/**
 * Reads the two variables. `answeredByDefault`: whether the accounts service
 * answers the calls unless told otherwise (the embedded reference service
 * does; an own backend must say so with SECOND_FACTOR=true).
 */
export function readSecondFactorSettings (env: Env, answeredByDefault: boolean): SecondFactorSettings {
  return {
    enabled: readBoolean(env, 'SECOND_FACTOR', answeredByDefault),
    rememberBrowser: readBoolean(env, 'SECOND_FACTOR_REMEMBER_BROWSER', true)
  }
}
