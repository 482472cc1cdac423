import { rewriteLiterals } from '../../shared/languages/message-syntax.js'
import type { Catalogue, MessageKey } from '../../../common/languages/message-catalogue.js'

/**
 * The pseudo-locales' texts (docs/languages.md, "Pseudo-locales"): English's,
 * every letter accented, 40 % longer and bracketed, so that a text the page
 * shows without accents is not from the catalogue, a text cut short has lost
 * its closing bracket, and a layout that only fits English's lengths breaks
 * where a translation would. `ar-XB` shows the same texts right to left.
 */
const ACCENTED: Readonly<Record<string, string>> = Object.fromEntries(
  [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'].map((letter, index) => [letter, [...'àƀçđéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÀƁÇĐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ'][index]!])
)

/** What a translation adds to an English text, on average in the longer languages (German, Finnish, Greek): 40 %. */
const GROWTH = 0.4

/**
 * A word accented and 40 % longer, from its own letters: the same word is
 * always the same pseudo-word, so that a button's visible text stays part of
 * its accessible name (WCAG 2.5.3) as a translation keeps it, and a long word
 * stays one unbreakable word, as German's and Finnish's are.
 */
function pseudoWord (word: string): string {
  const longer = word + word.slice(0, Math.ceil(word.length * GROWTH)).toLowerCase()
  return longer.replace(/[A-Za-z]/g, (letter) => ACCENTED[letter]!)
}

/** One English text as a pseudo-locale says it, bracketed (a text cut short loses its "]"); placeholders and plural syntax unchanged. */
export function pseudoText (english: string): string {
  return `[${rewriteLiterals(english, (literal) => literal.replace(/[A-Za-z]+/g, pseudoWord))}]`
}

/** Every text of English's catalogue as the pseudo-locales say it. */
export function pseudoCatalogue (english: Catalogue): Catalogue {
  return Object.fromEntries(Object.entries(english).map(([key, text]) => [key, pseudoText(text)])) as Record<MessageKey, string>
}
