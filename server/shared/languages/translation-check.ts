import { messageShape, type MessageShape } from './message-syntax.js'

/** `{a}, {b}`, or `none`: how a problem names placeholders. */
function placeholderList (names: readonly string[]): string {
  return names.length === 0 ? 'none' : names.map((name) => `{${name}}`).join(', ')
}

/** The CLDR plural categories a language's texts must each give a branch for (Intl.PluralRules). */
export function pluralCategoriesOf (locale: string): readonly string[] {
  return new Intl.PluralRules(locale).resolvedOptions().pluralCategories
}

/**
 * What is wrong with one translated text, against English's text of the same
 * key, in `locale`; null when nothing is. Checked: the format parses, the
 * placeholders are English's, and every plural gives exactly the branches the
 * language's plural rules pick from (`=N` branches aside). A language with
 * one form (Japanese, Chinese…) may write a count as a plain `{name}`.
 */
export function translationProblem (locale: string, text: string, english: string): string | null {
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
    if (categories.length > 1 && !shape.plurals.some((plural) => plural.name === name)) {
      return `says {${name}} without its plural forms: write {${name}, plural, ${categories.map((category) => `${category} {…}`).join(' ')}}`
    }
  }
  for (const { name, branches } of shape.plurals) {
    const lacking = categories.filter((category) => !branches.includes(category))
    if (lacking.length > 0) return `the plural of {${name}} lacks ${lacking.join(', ')} (${locale} has ${categories.join(', ')})`
    const stray = branches.filter((branch) => !branch.startsWith('=') && !categories.includes(branch))
    if (stray.length > 0) return `the plural of {${name}} has ${stray.join(', ')}, which ${locale} never uses (it has ${categories.join(', ')})`
  }
  return null
}
