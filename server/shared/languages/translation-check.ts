import { messageShape, PLURAL_CATEGORIES, type MessageShape } from './message-syntax.js'

/** `{a}, {b}`, or `none`: how a problem names placeholders. */
function placeholderList (names: readonly string[]): string {
  return names.length === 0 ? 'none' : names.map((name) => `{${name}}`).join(', ')
}

/** The CLDR plural categories a language's texts must each give a branch for (Intl.PluralRules), in CLDR's order (engines list them in their own). */
export function pluralCategoriesOf (locale: string): readonly string[] {
  const categories: readonly string[] = new Intl.PluralRules(locale).resolvedOptions().pluralCategories
  return PLURAL_CATEGORIES.filter((category) => categories.includes(category))
}

/**
 * How strictly a text is held: `shipped` for the project's catalogues (every
 * count a plural, exactly the language's forms); `operator` for MESSAGES_DIR,
 * which also takes what a deployment wrote before its language had plural
 * forms (a plain `{min}`) or before Node's CLDR data dropped a form (Hebrew's
 * `many`), so that an upgrade never stops a start that worked.
 */
export type Strictness = 'shipped' | 'operator'

/**
 * What is wrong with one translated text, against English's text of the same
 * key, in `locale`; null when nothing is. Checked: the format parses, the
 * placeholders are English's, and every plural gives exactly the branches the
 * language's plural rules pick from (`=N` branches aside). A language with
 * one form (Japanese, Chinese…) may write a count as a plain `{name}`.
 */
export function translationProblem (locale: string, text: string, english: string, strictness: Strictness = 'shipped'): string | null {
  let shape: MessageShape
  try {
    shape = messageShape(text)
  } catch (error) {
    return `does not parse: ${(error as Error).message}`
  }
  const reference = messageShape(english)
  if (shape.names.join() !== reference.names.join()) {
    return `has the placeholders ${placeholderList(shape.names)} where English has ${placeholderList(reference.names)}`
  }
  const categories = pluralCategoriesOf(locale)
  for (const { name } of reference.plurals) {
    if (strictness === 'shipped' && categories.length > 1 && !shape.plurals.some((plural) => plural.name === name)) {
      return `says {${name}} without its plural forms: write {${name}, plural, ${categories.map((category) => `${category} {…}`).join(' ')}}`
    }
  }
  for (const { name, branches } of shape.plurals) {
    const lacking = categories.filter((category) => !branches.includes(category))
    if (lacking.length > 0) return `has a plural of {${name}} without ${lacking.join(', ')} (${locale} has ${categories.join(', ')})`
    const stray = branches.filter((branch) => !branch.startsWith('=') && !categories.includes(branch))
    if (strictness === 'shipped' && stray.length > 0) return `has a plural of {${name}} with ${stray.join(', ')}, which ${locale} never uses (it has ${categories.join(', ')})`
  }
  return null
}
