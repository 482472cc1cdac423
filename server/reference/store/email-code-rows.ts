import type { EmailCode, EmailCodeRecord } from './account-store.js'

/** An email_codes row, as both stores read it. */
export interface EmailCodeRow {
  id: string
  address_hash: string
  code_hash: string
  binding_hash: string
  purpose: EmailCode['purpose']
  account_id: string | null
  range_hash: string
  tries: number
  created_at: number
  expires_at: number
}

export function toEmailCode (row: EmailCodeRow): EmailCodeRecord {
  return {
    id: row.id,
    addressHash: row.address_hash,
    codeHash: row.code_hash,
    bindingHash: row.binding_hash,
    purpose: row.purpose,
    accountId: row.account_id,
    rangeHash: row.range_hash,
    tries: Number(row.tries),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at)
  }
}

/** The values of a new row, in the column order of the stores' INSERT. */
export function emailCodeValues (code: EmailCode): Array<string | number | null> {
  return [code.id, code.addressHash, code.codeHash, code.bindingHash, code.purpose, code.accountId, code.rangeHash, code.createdAt, code.expiresAt]
}

/** When a send is allowed again: when the oldest of the last `limit` sends within the window leaves it. */
export function retryAtAfter (sentAt: readonly number[], limit: number, windowMs: number): number {
  const newestFirst = [...sentAt].sort((a, b) => b - a)
  return newestFirst[limit - 1]! + windowMs
}
