import { openPage } from './start-page.js'

// No CSS is imported here: the build inlines client/styles.css in the page's head (build/client.mjs pageStyle).
openPage()
