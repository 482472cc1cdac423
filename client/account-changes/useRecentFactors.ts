import { useState } from 'react'
import useSWRMutation from 'swr/mutation'
import type { RecentFactorsReview } from '../../common/account-changes/recent-factors.js'
import { removeRecentFactor, type RecentFactorRemoval } from './recent-factors-calls.js'

/** One listed item: a passkey with its name, or the authenticator app; `at` is when it was added (ISO 8601). */
export type RecentFactor =
  | { readonly key: string, readonly kind: 'passkey', readonly name: string, readonly at: string, readonly removal: RecentFactorRemoval }
  | { readonly key: string, readonly kind: 'second-factor', readonly at: string, readonly removal: RecentFactorRemoval }

/** What the last removal came to: the item gone (and the item whose button takes the focus, null: none left), or the refusal. */
export type RemovalOutcome =
  | { readonly kind: 'removed', readonly item: RecentFactor, readonly focus: string | null }
  | { readonly kind: 'refused', readonly refusal: Awaited<ReturnType<typeof removeRecentFactor>> }

function itemsOf (review: RecentFactorsReview): RecentFactor[] {
  const passkeys = review.passkeys.map((passkey): RecentFactor => ({
    key: `passkey:${passkey.id}`, kind: 'passkey', name: passkey.name, at: passkey.createdAt, removal: { passkey_id: passkey.id }
  }))
  const enrolledAt = review.secondFactorEnrolledAt
  return enrolledAt === null ? passkeys : [...passkeys, { key: 'second-factor', kind: 'second-factor', at: enrolledAt, removal: { second_factor: true } }]
}

/**
 * The list a completed reset answered (docs/account-changes.md) and the
 * removal of its items, one call each with the answer's review token. The
 * items left are derived from the list and what was removed.
 */
export function useRecentFactors (review: RecentFactorsReview) {
  const [removed, setRemoved] = useState<ReadonlySet<string>>(() => new Set())
  const [outcome, setOutcome] = useState<RemovalOutcome | null>(null)
  const { trigger, isMutating } = useSWRMutation('threshold/recent-factors',
    (_key: string, { arg }: { arg: RecentFactor }) => removeRecentFactor(review.reviewToken, arg.removal))
  const items = itemsOf(review).filter((item) => !removed.has(item.key))
  return {
    items,
    outcome,
    /** The item whose removal runs: its button shows the spinner, every button waits. */
    removing: isMutating,
    remove (item: RecentFactor): void {
      setOutcome(null)
      const index = items.indexOf(item)
      const next = items[index + 1] ?? items[index - 1] ?? null
      void trigger(item, {
        onSuccess: (answer) => {
          if (answer.kind !== 'success') {
            setOutcome({ kind: 'refused', refusal: answer })
            return
          }
          setRemoved((before) => new Set(before).add(item.key))
          setOutcome({ kind: 'removed', item, focus: next?.key ?? null })
        }
      })
    }
  }
}
