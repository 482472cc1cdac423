import { catalogueFamily, type CatalogueTexts } from '../languages/catalogue-family.js'
import ar from './messages/ar.json' with { type: 'json' }
import cs from './messages/cs.json' with { type: 'json' }
import da from './messages/da.json' with { type: 'json' }
import de from './messages/de.json' with { type: 'json' }
import el from './messages/el.json' with { type: 'json' }
import englishEmails from './messages/en.json' with { type: 'json' }
import es from './messages/es.json' with { type: 'json' }
import fa from './messages/fa.json' with { type: 'json' }
import fi from './messages/fi.json' with { type: 'json' }
import fr from './messages/fr.json' with { type: 'json' }
import he from './messages/he.json' with { type: 'json' }
import hi from './messages/hi.json' with { type: 'json' }
import hu from './messages/hu.json' with { type: 'json' }
import id from './messages/id.json' with { type: 'json' }
import it from './messages/it.json' with { type: 'json' }
import ja from './messages/ja.json' with { type: 'json' }
import ko from './messages/ko.json' with { type: 'json' }
import ms from './messages/ms.json' with { type: 'json' }
import nb from './messages/nb.json' with { type: 'json' }
import nl from './messages/nl.json' with { type: 'json' }
import pl from './messages/pl.json' with { type: 'json' }
import ptBR from './messages/pt-BR.json' with { type: 'json' }
import ptPT from './messages/pt-PT.json' with { type: 'json' }
import ro from './messages/ro.json' with { type: 'json' }
import ru from './messages/ru.json' with { type: 'json' }
import sv from './messages/sv.json' with { type: 'json' }
import th from './messages/th.json' with { type: 'json' }
import tr from './messages/tr.json' with { type: 'json' }
import uk from './messages/uk.json' with { type: 'json' }
import vi from './messages/vi.json' with { type: 'json' }
import zhHans from './messages/zh-Hans.json' with { type: 'json' }
import zhHant from './messages/zh-Hant.json' with { type: 'json' }

/** Every key of the emails' catalogues, as English has them (server/reference/emails/messages/en.json). */
export type EmailMessageKey = keyof typeof englishEmails

/** The emails' texts in one language. */
export type EmailMessages = CatalogueTexts<EmailMessageKey>

/** The emails' texts in `locale` (server/reference/emails/messages/<locale>.json). */
export const emailMessages = catalogueFamily<EmailMessageKey>(englishEmails, {
  de, fr, es, ja, ar, 'pt-BR': ptBR, 'pt-PT': ptPT, it, nl, pl, cs, sv, da, nb, fi, ru, uk, tr, el, ro, hu, he, fa, hi, id, vi, th, ko, 'zh-Hans': zhHans, 'zh-Hant': zhHant, ms
})
