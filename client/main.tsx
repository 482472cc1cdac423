import { startPage } from './start-page.js'
import './styles.css'

void startPage()
