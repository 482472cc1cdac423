# Shared by the CI checks that start a server: wait for it, then use the page
# and the embedded accounts service as a visitor's browser would.
# Source it, then: wait_until_ready BASE; register_and_log_in BASE.

free_port () {
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# Waits up to 60 s: a first start may still be building or opening its store.
wait_until_ready () {
  local base=$1
  for _ in $(seq 1 600); do
    curl -fsS -o /dev/null "$base/readyz" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "the server at $base did not become ready"; return 1
}

# The page, then a registration and a login through the page's API; fails unless the login answers both tokens.
register_and_log_in () {
  local base=$1
  curl -fsS -o /dev/null -w 'GET / → %{http_code}\n' "$base/"
  curl -fsS "$base/readyz"; echo
  # A passphrase of this run's own: the callers start the server with BREACHED_PASSWORDS=off (CI must not
  # depend on the public corpus), but an operator may run these checks against one with the check on
  # (docs/breached-passwords.md), and a fixed passphrase could one day be in that corpus.
  local password
  password="ci run $(od -An -N8 -tx1 /dev/urandom | tr -d ' \n') passphrase"
  local body="{\"email\":\"ci@example.test\",\"password\":\"$password\",\"confirm_password\":\"$password\",\"first_name\":\"\",\"last_name\":\"\"}"
  curl -fsS -H 'content-type: application/json' -d "$body" "$base/accounts/register"; echo
  curl -fsS -H 'content-type: application/json' -d "{\"email\":\"CI@example.test\",\"password\":\"$password\"}" "$base/accounts/v2/login" \
    | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const a=JSON.parse(s);if(!a.auth||!a.refresh){console.error("login failed:",s);process.exit(1)}console.log("login → auth and refresh tokens")})'
}
