/**
 * A value as JSON for an HTML `<script type="application/json">` element:
 * `<`, `>`, `&` and the two JavaScript line terminators are escaped, so no
 * value can close the element or start markup. The page's three embedded
 * documents (runtime configuration, form state, texts) all go through it.
 */
export function jsonForScriptElement (value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (character) =>
    `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
