import { startAfreshOnRestore } from './page/back-forward-cache.js'
import { startPage } from './start-page.js'

// No CSS is imported here: the build inlines client/styles.css in the page's head (build/client.mjs pageStyle).
startAfreshOnRestore(async (replacing) => await startPage(replacing === undefined ? {} : { replacing }))
