/**
 * The form of an email address used to find accounts: two addresses that
 * differ only in case (or in Unicode composition) belong to one account.
 */
export function emailKey (email: string): string {
  return email.trim().normalize('NFC').toLowerCase()
}
