import { createRoot } from 'react-dom/client'

const root = document.getElementById('root')
if (root !== null) createRoot(root).render(<main><h1>Sign in</h1></main>)
