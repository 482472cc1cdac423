import type { JsonAnswer } from '../../common/http/accounts-answers.js'
import { CHALLENGE_HEADER, CHALLENGE_REQUIRED_REASON, CHALLENGE_REQUIRED_STATUS, type ChallengeSpec } from '../../common/challenge/challenge.js'
import type { MessageKey, Messages } from '../../common/languages/message-catalogue.js'
import { pageTextsWithLater } from '../languages/later-page-texts.js'
import { FORM_NOTICE_ID, STEP_NOTICE_ID } from '../page/form-view-props.js'
import { loadChunk } from '../page/load-chunk.js'
import { solvePow } from './solve-pow.js'

type Json = Extract<JsonAnswer, { kind: 'json' }>

/**
 * How many challenges one call solves. A second one after a solved one is
 * solved too (the risk rose meanwhile, or the first expired on a slow
 * phone); a third is refused, so that an edge that never accepts cannot
 * keep the page solving.
 */
export const CHALLENGE_ROUNDS = 2

/** Solving that lasts longer than this is said in the live region: ordinary visitors, solving in a blink, never see it. */
export const CHECKING_NOTE_DELAY_MS = 1000

/** How solving ended, when not with a header: which text the visitor reads. */
const REFUSAL_KEYS: Readonly<Record<'unsupported' | 'failed', MessageKey>> = {
  unsupported: 'browserCheck.unsupported',
  failed: 'browserCheck.failed'
}

/**
 * The challenge chunk's entry (client/http/post-json.ts loads it on a 428): solves
 * the edge's challenge (common/challenge/challenge.ts), without the visitor doing
 * anything, and makes the call again with the solution (`repeat`). The
 * answer is the repeated call's, or a refusal (the 428 status with the
 * page's text as `error`) that the call's parser shows as any refusal. A 428
 * that is not a challenge is passed on as it came.
 */
export async function answerChallenge (first: Json, repeat: (headers: Record<string, string>) => Promise<JsonAnswer>): Promise<JsonAnswer> {
  if (first.body.reason !== CHALLENGE_REQUIRED_REASON) return first
  // Fetched while the solving starts; a page whose texts do not load still solves, and refuses with the edge's text.
  const texts = pageTextsWithLater().catch(() => null)
  let answer: JsonAnswer = first
  for (let round = 0; round < CHALLENGE_ROUNDS; round++) {
    const outcome = await withCheckingNote(texts, solve(specOf(answer.body.challenge)))
    if (outcome.kind !== 'solved') return refusal(first, await texts, REFUSAL_KEYS[outcome.kind])
    answer = await repeat({ [CHALLENGE_HEADER]: outcome.header })
    if (!isChallenge(answer)) return answer
  }
  return refusal(first, await texts, 'browserCheck.failed')
}

type Outcome = Awaited<ReturnType<typeof solvePow>>

async function solve (spec: ChallengeSpec | null): Promise<Outcome> {
  if (spec === null) return { kind: 'failed' }
  if (spec.kind === 'pow') return solvePow(spec.challenge)
  // The widget's own chunk: an operator's choice, rarely loaded.
  const [{ widgetToken }, texts] = await Promise.all([loadChunk(() => import('./widget-token.js')), pageTextsWithLater().catch(() => null)])
  const token = await widgetToken(spec.kind, spec.siteKey, texts?.text('browserCheck.widgetLabel') ?? '')
  return token === null ? { kind: 'failed' } : { kind: 'solved', header: token }
}

/**
 * Says "checking your browser" once solving has taken {@link CHECKING_NOTE_DELAY_MS},
 * and takes it back when it ends. The polite live region is put in the page,
 * empty, as solving starts, after the notice of the step that has the card
 * (the breached-password notice's reset link) or else the form's, where the
 * visitor looks, so that a screen reader knows it before it speaks; it is
 * this chunk's, not React's (which never touches a node it did not render),
 * so the first load carries nothing for it.
 */
async function withCheckingNote<T> (texts: Promise<Messages | null>, solving: Promise<T>): Promise<T> {
  const region = document.createElement('div')
  region.setAttribute('role', 'status')
  const anchor = document.getElementById(STEP_NOTICE_ID) ?? document.getElementById(FORM_NOTICE_ID)
  anchor?.after(region)
  const timer = setTimeout(() => {
    void texts.then((messages) => {
      if (messages === null || !region.isConnected) return
      const note = document.createElement('p')
      note.className = 'notice'
      note.textContent = messages.text('browserCheck.checking')
      region.append(note)
    })
  }, CHECKING_NOTE_DELAY_MS)
  try {
    return await solving
  } finally {
    clearTimeout(timer)
    region.remove()
  }
}

const isChallenge = (answer: JsonAnswer): answer is Json =>
  answer.kind === 'json' && answer.status === CHALLENGE_REQUIRED_STATUS && answer.body.reason === CHALLENGE_REQUIRED_REASON

/** The spec as common/challenge/challenge.ts describes it; null for anything else (the page cannot solve it). */
function specOf (value: unknown): ChallengeSpec | null {
  if (value === null || typeof value !== 'object') return null
  const spec = value as Record<string, unknown>
  if (spec.kind === 'pow' && typeof spec.challenge === 'object' && spec.challenge !== null) {
    return { kind: 'pow', challenge: spec.challenge as Record<string, unknown> }
  }
  if ((spec.kind === 'turnstile' || spec.kind === 'hcaptcha') && typeof spec.siteKey === 'string' && spec.siteKey !== '') {
    return { kind: spec.kind, siteKey: spec.siteKey }
  }
  return null
}

/** A refusal the call's parser shows: the page's text, or the edge's own when the page's texts did not load. */
function refusal (first: Json, texts: Messages | null, key: MessageKey): JsonAnswer {
  return { kind: 'json', status: CHALLENGE_REQUIRED_STATUS, body: { error: texts?.text(key) ?? first.body.error } }
}
