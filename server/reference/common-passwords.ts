/**
 * Passwords of eight characters or more that appear at the top of every
 * published breach list. NIST SP 800-63B asks services to refuse them; the
 * list is short on purpose (an operator wanting more should check a breach
 * corpus such as the k-anonymity range API of Have I Been Pwned).
 */
export const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  '12345678', '123456789', '1234567890', '12341234', '123123123', '11111111', '00000000', '87654321',
  '1q2w3e4r', '1qaz2wsx', 'q1w2e3r4', 'zaq12wsx', 'qwertyui', 'qwertyuiop', 'qwerty123', 'qazwsxedc',
  'asdfghjkl', 'password', 'password1', 'password12', 'password123', 'password!', 'passw0rd', 'p@ssw0rd',
  'p@ssword', 'iloveyou', 'iloveyou1', 'sunshine', 'sunshine1', 'princess', 'princess1', 'football',
  'football1', 'baseball', 'baseball1', 'welcome1', 'welcome123', 'abc12345', 'abcd1234', 'superman',
  'trustno1', 'letmein1', 'letmein123', 'admin123', 'administrator', 'michael1', 'computer', 'whatever',
  'starwars', 'mustang1', 'jennifer', 'hello123', 'charlie1', 'freedom1', 'monkey123', 'changeme',
  'changeme1', 'secret123', 'qwerty12', 'aa123456', 'a1234567', 'internet', 'samsung1', 'lovely123'
])
