/** The part of an email after the last @: what the domain authorization check asks about (docs/accounts-api.md, "The domain check"). */
export function emailDomain (email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).trim()
}
