import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { preloadDomainCheck } from './api/check-domain.js'
import { applyDesignTokens } from './lib/constants.js'
import { parseRuntimeConfig, RUNTIME_CONFIG_ELEMENT_ID } from '../common/runtime-config.js'
import { SignInPage } from './SignInPage.js'
import './styles.css'

const config = parseRuntimeConfig(document.getElementById(RUNTIME_CONFIG_ELEMENT_ID)?.textContent)

// The gRPC-web chunk is fetched now, while React renders, so the check adds no delay at login.
if (new URLSearchParams(window.location.search).get('supports_domain_auth_check') === 'true') {
  preloadDomainCheck().catch(() => {})
}

applyDesignTokens(document.documentElement)
const root = document.getElementById('root')
if (root !== null) {
  createRoot(root).render(<StrictMode><SignInPage config={config} /></StrictMode>)
}
