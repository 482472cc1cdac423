import { startAfreshOnRestore } from './page/back-forward-cache.js'
import { startPage } from './start-page.js'
import './styles.css'

startAfreshOnRestore(startPage)
