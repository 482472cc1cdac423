import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import type { ExtraAsset } from '../page/static-files.js'
import type { BrandSettings } from './brand-config.js'
import { servedExtension, type BrandFile } from './brand-files.js'

/**
 * An operator's SVG is only ever put in an `<img>`, where it runs nothing;
 * opened directly it would be a document of our origin, so it carries a
 * policy that lets it draw and do nothing else (no script, no fetch, no
 * form), sandboxed as well.
 */
export const SVG_CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

/** What each brand file is to the page. */
export type BrandRole = 'logo' | 'favicon' | 'poster' | 'video'

/** Where the page finds a brand file: under /assets/brand/, named by role and content hash, with the detected format's extension. */
function brandAssetName (role: BrandRole, file: BrandFile): string {
  return `brand/${role}-${file.sha256.slice(0, 16).replace(/[-_]/g, 'X')}${servedExtension(file)}`
}

/** The URL path of a brand file. */
export function brandAssetUrl (role: BrandRole, file: BrandFile): string {
  return `/assets/${brandAssetName(role, file)}`
}

function brandFiles (brand: BrandSettings): Array<[BrandRole, BrandFile]> {
  const files: Array<[BrandRole, BrandFile | null | undefined]> = [
    ['logo', brand.logo?.file],
    ['favicon', brand.favicon],
    ['poster', brand.background.kind === 'operator' ? brand.background.poster : null],
    ['video', brand.background.kind === 'operator' ? brand.background.video : null]
  ]
  return files.filter((entry): entry is [BrandRole, BrandFile] => entry[1] != null)
}

/**
 * The operator's files as the edge serves them: images read into memory now,
 * the video streamed from disk (Range requests). An image must still be the
 * file that was checked at start: one replaced in between stops the start
 * rather than serve what nobody checked.
 */
export async function loadBrandAssets (brand: BrandSettings): Promise<ExtraAsset[]> {
  return await Promise.all(brandFiles(brand).map(async ([role, file]): Promise<ExtraAsset> => {
    const name = brandAssetName(role, file)
    const headers: Record<string, string> = file.format === 'svg' ? { 'content-security-policy': SVG_CONTENT_SECURITY_POLICY } : {}
    if (role === 'video') return { name, source: { folder: dirname(file.path), file: basename(file.path), expected: file.identity }, headers }
    const body = await readFile(file.path)
    if (createHash('sha256').update(body).digest('base64url') !== file.sha256) {
      throw new Error(`${file.path} (the ${role}) changed while the edge was starting; start it again`)
    }
    return { name, source: { body }, headers }
  }))
}
