/** The part of an email after the last @: what the domain authorization check asks about (spec §5). */
export function emailDomain (email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).trim()
}
