import { HttpError } from '../http/http-error.js'

/**
 * A form body that cannot be read as the page's forms post it: not UTF-8, a
 * field missing or given twice. Its message is the visitor's; `reason` names
 * the field (never a value), for the log.
 */
export class FormFieldsError extends HttpError {
  readonly code = 'THRESHOLD_FORM_UNREADABLE'
  constructor (readonly reason: string) {
    super(400, 'server.formUnreadable')
    this.name = 'FormFieldsError'
  }
}

/** The fields of one posted form, each read once: a field given twice is never the page's. */
export interface FormFields {
  /** The field's value; a missing or repeated field is a {@link FormFieldsError}. */
  one (name: string): string
  /** The field's value, or `fallback` when the form has no such field; a repeated field is a {@link FormFieldsError}. */
  optional (name: string, fallback: string): string
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/**
 * An `application/x-www-form-urlencoded` body as URLSearchParams reads it
 * (what a browser sends for a form without `enctype`). Fields the form does
 * not name are ignored, as a JSON call's extra fields would be.
 */
export function readFormFields (body: Buffer): FormFields {
  let text: string
  try {
    text = utf8.decode(body)
  } catch {
    throw new FormFieldsError('not UTF-8')
  }
  const params = new URLSearchParams(text)
  const valueOf = (name: string): string | undefined => {
    const values = params.getAll(name)
    if (values.length > 1) throw new FormFieldsError(`field "${name}" repeated`)
    return values[0]
  }
  return {
    one (name) {
      const value = valueOf(name)
      if (value === undefined) throw new FormFieldsError(`field "${name}" missing`)
      return value
    },
    optional (name, fallback) {
      return valueOf(name) ?? fallback
    }
  }
}
