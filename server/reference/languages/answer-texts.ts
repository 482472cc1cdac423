import type { Locale, MessageParams } from '../../../common/languages/message-catalogue.js'
import { catalogueFamily } from './catalogue-family.js'
import arabic from './ar.json' with { type: 'json' }
import german from './de.json' with { type: 'json' }
import englishAnswers from './en.json' with { type: 'json' }
import spanish from './es.json' with { type: 'json' }
import french from './fr.json' with { type: 'json' }
import japanese from './ja.json' with { type: 'json' }

/** Every key of the answers' catalogues, as English has them (server/reference/languages/en.json). */
export type AnswerKey = keyof typeof englishAnswers

/**
 * A text of an answer before its language is known: what a parser refuses
 * with. A bare key, or a key with the values of its placeholders.
 */
export type AnswerText = AnswerKey | { readonly key: AnswerKey, readonly params: MessageParams }

/** The answers' texts in `locale` (server/reference/languages/<locale>.json). */
const answerTexts = catalogueFamily<AnswerKey>(englishAnswers, { de: german, fr: french, es: spanish, ja: japanese, ar: arabic })

/**
 * `text` in the language of the request it answers: `facts.locale`, chosen
 * from the request's Accept-Language (server/reference/http/answers.ts), which the page sets to its
 * own language.
 */
export function say (facts: { readonly locale: Locale }, text: AnswerText): string {
  return typeof text === 'string' ? answerTexts(facts.locale).text(text) : answerTexts(facts.locale).text(text.key, text.params)
}
