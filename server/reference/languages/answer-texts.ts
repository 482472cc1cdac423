import type { Locale } from '../../../common/languages/message-catalogue.js'
import type { MessageParams } from '../../../common/languages/message-format.js'
import { catalogueFamily } from './catalogue-family.js'
import ar from './ar.json' with { type: 'json' }
import cs from './cs.json' with { type: 'json' }
import da from './da.json' with { type: 'json' }
import de from './de.json' with { type: 'json' }
import el from './el.json' with { type: 'json' }
import englishAnswers from './en.json' with { type: 'json' }
import es from './es.json' with { type: 'json' }
import fa from './fa.json' with { type: 'json' }
import fi from './fi.json' with { type: 'json' }
import fr from './fr.json' with { type: 'json' }
import he from './he.json' with { type: 'json' }
import hi from './hi.json' with { type: 'json' }
import hu from './hu.json' with { type: 'json' }
import id from './id.json' with { type: 'json' }
import it from './it.json' with { type: 'json' }
import ja from './ja.json' with { type: 'json' }
import ko from './ko.json' with { type: 'json' }
import ms from './ms.json' with { type: 'json' }
import nb from './nb.json' with { type: 'json' }
import nl from './nl.json' with { type: 'json' }
import pl from './pl.json' with { type: 'json' }
import ptBR from './pt-BR.json' with { type: 'json' }
import ptPT from './pt-PT.json' with { type: 'json' }
import ro from './ro.json' with { type: 'json' }
import ru from './ru.json' with { type: 'json' }
import sv from './sv.json' with { type: 'json' }
import th from './th.json' with { type: 'json' }
import tr from './tr.json' with { type: 'json' }
import uk from './uk.json' with { type: 'json' }
import vi from './vi.json' with { type: 'json' }
import zhHans from './zh-Hans.json' with { type: 'json' }
import zhHant from './zh-Hant.json' with { type: 'json' }

/** Every key of the answers' catalogues, as English has them (server/reference/languages/en.json). */
export type AnswerKey = keyof typeof englishAnswers

/**
 * A text of an answer before its language is known: what a parser refuses
 * with. A bare key, or a key with the values of its placeholders.
 */
export type AnswerText = AnswerKey | { readonly key: AnswerKey, readonly params: MessageParams }

/** The answers' texts in `locale` (server/reference/languages/<locale>.json). */
const answerTexts = catalogueFamily<AnswerKey>(englishAnswers, {
  de, fr, es, ja, ar, 'pt-BR': ptBR, 'pt-PT': ptPT, it, nl, pl, cs, sv, da, nb, fi, ru, uk, tr, el, ro, hu, he, fa, hi, id, vi, th, ko, 'zh-Hans': zhHans, 'zh-Hant': zhHant, ms
})

/**
 * `text` in the language of the request it answers: `facts.locale`, chosen
 * from the request's Accept-Language (server/reference/http/answers.ts), which the page sets to its
 * own language.
 */
export function say (facts: { readonly locale: Locale }, text: AnswerText): string {
  return typeof text === 'string' ? answerTexts(facts.locale).text(text) : answerTexts(facts.locale).text(text.key, text.params)
}
