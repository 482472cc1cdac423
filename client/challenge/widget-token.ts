/**
 * The operator's third-party challenge (CHALLENGE=turnstile|hcaptcha,
 * docs/challenge.md): the provider's script, loaded only now, renders its
 * widget in a box after the card, and its token is the header's value.
 * Deliberately thin, and not tested here (no provider can be reached from the
 * tests): both providers take the same explicit render call, and the edge
 * checks the token with the provider. The edge's CSP must allow the
 * provider's script and frame hosts for it to load (docs/challenge.md).
 */

type WidgetKind = 'turnstile' | 'hcaptcha'

interface WidgetApi {
  render (container: HTMLElement, options: Record<string, unknown>): unknown
}

/** Each provider's script, rendering only when asked, and the global it defines. */
const PROVIDERS: Readonly<Record<WidgetKind, { readonly script: string, readonly global: string }>> = {
  turnstile: { script: 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit', global: 'turnstile' },
  hcaptcha: { script: 'https://js.hcaptcha.com/1/api.js?render=explicit', global: 'hcaptcha' }
}

/** How long the visitor has to finish the widget before the page gives up. */
const WIDGET_TIMEOUT_MS = 120_000

/** The widget's token; null when the script does not load, the widget fails, or the time runs out. */
export async function widgetToken (kind: WidgetKind, siteKey: string, label: string): Promise<string | null> {
  const provider = PROVIDERS[kind]
  const box = document.createElement('div')
  box.className = 'challenge-widget'
  box.setAttribute('role', 'group')
  box.setAttribute('aria-label', label)
  document.querySelector('main')?.after(box)
  try {
    const api = await loadScript(provider.script, provider.global)
    return await new Promise<string | null>((resolve) => {
      setTimeout(() => resolve(null), WIDGET_TIMEOUT_MS)
      api.render(box, {
        sitekey: siteKey,
        callback: (token: unknown) => resolve(typeof token === 'string' && token !== '' ? token : null),
        'error-callback': () => resolve(null),
        'expired-callback': () => resolve(null)
      })
    })
  } catch {
    return null
  } finally {
    box.remove()
  }
}

async function loadScript (src: string, global: string): Promise<WidgetApi> {
  const loaded = (): WidgetApi | undefined => (window as unknown as Record<string, WidgetApi | undefined>)[global]
  if (loaded() === undefined) {
    await new Promise((resolve, reject) => {
      const script = document.createElement('script')
      script.src = src
      script.async = true
      script.onload = resolve
      script.onerror = reject
      document.head.append(script)
    })
  }
  const api = loaded()
  if (api === undefined) throw new Error(`${global} did not load`)
  return api
}
