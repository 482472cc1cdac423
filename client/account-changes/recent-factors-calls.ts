import { parseSuccessAnswer, type SuccessAnswer } from '../../common/http/accounts-answers.js'
import { postJson } from '../http/post-json.js'

/*
 * The removal of what a completed reset listed (common/account-changes/recent-factors.ts).
 * Loaded with the list's chunk only, never on the first load.
 */

/** One listed item: a passkey by its id, or the authenticator app. */
export type RecentFactorRemoval = { readonly passkey_id: string } | { readonly second_factor: true }

/** Removes one listed item with the reset answer's review token. */
export async function removeRecentFactor (reviewToken: string, removal: RecentFactorRemoval): Promise<SuccessAnswer> {
  return parseSuccessAnswer(await postJson('/accounts/recentFactors/remove', { review_token: reviewToken, ...removal }))
}
