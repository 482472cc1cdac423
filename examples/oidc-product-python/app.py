"""A small product on another domain that signs its users in through Threshold's
OpenID Connect provider (docs/products.md): the authorization code flow with
PKCE, the ID token verified against the provider's keys, userinfo, sign-out at
the provider (RP-initiated logout) and back-channel logout. Python's standard
library and Debian's python3-jwt (PyJWT) only:

    ISSUER=https://signin.example.com CLIENT_ID=notes CLIENT_SECRET=... python3 app.py

README.md beside this file says what each variable does.
"""

import base64
import hashlib
import html
import json
import os
import secrets
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt

BACKCHANNEL_LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout"
# A login not finished in this time is forgotten (the provider's own interaction lasts no longer).
PENDING_LOGIN_SECONDS = 600
# The provider's clock and ours may differ a little (docs/reference-service.md asks for 60 s).
LEEWAY_SECONDS = 60
HTTP_TIMEOUT_SECONDS = 10


class ConfigError(Exception):
    pass


def origin_of(name, value):
    """An origin such as https://app.example.com, or a ConfigError naming the variable."""
    parsed = urllib.parse.urlsplit(value or "")
    if parsed.scheme not in ("https", "http") or not parsed.netloc or parsed.path not in ("", "/") or parsed.query or parsed.fragment:
        raise ConfigError(f"{name} must be an origin such as https://signin.example.com")
    return f"{parsed.scheme}://{parsed.netloc}"


def config_from_env(env):
    if not env.get("ISSUER"):
        raise ConfigError("ISSUER must be set: the sign-in page's PUBLIC_URL")
    if not env.get("CLIENT_ID"):
        raise ConfigError("CLIENT_ID must be set: the client registered at the provider")
    return {
        "issuer": origin_of("ISSUER", env["ISSUER"]),
        "client_id": env["CLIENT_ID"],
        # None: a public client, which proves itself with PKCE alone.
        "client_secret": env.get("CLIENT_SECRET") or None,
        "app_url": origin_of("APP_URL", env["APP_URL"]) if env.get("APP_URL") else None,
        "scope": env.get("SCOPES", "openid email profile"),
        "acr_values": env.get("ACR_VALUES") or None,
        "port": int(env.get("PORT", "8000")),
        "host": env.get("HOST", "127.0.0.1"),
    }


def pkce_pair():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def http_json(url, data=None, headers=None):
    """GET (or POST a form when `data`) and the answer's JSON; an HTTPError's body is read as JSON too."""
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    request = urllib.request.Request(url, data=body, headers={"accept": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT_SECONDS) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        try:
            return error.code, json.loads(error.read() or b"{}")
        except ValueError:
            return error.code, {}


class Provider:
    """The provider's discovery document and keys, fetched on first use and kept."""

    def __init__(self, issuer):
        self.issuer = issuer
        self._metadata = None
        self._keys = None
        self._lock = threading.Lock()

    def metadata(self):
        with self._lock:
            if self._metadata is None:
                status, document = http_json(f"{self.issuer}/.well-known/openid-configuration")
                if status != 200 or document.get("issuer") != self.issuer:
                    raise RuntimeError(f"discovery answered {status}")
                self._metadata = document
                # PyJWKClient fetches the set again when a token names a key it does not hold (a rotation).
                self._keys = jwt.PyJWKClient(document["jwks_uri"])
            return self._metadata

    def verify(self, token, client_id, **claims):
        """A token's claims once its signature, issuer, audience and times check out; jwt.PyJWTError otherwise."""
        self.metadata()
        key = self._keys.get_signing_key_from_jwt(token).key
        return jwt.decode(
            token, key, algorithms=["EdDSA"], audience=client_id, issuer=self.issuer, leeway=LEEWAY_SECONDS,
            options={"require": ["exp", "iat", "sub", *claims.get("require", [])]},
        )


class App:
    def __init__(self, config):
        self.config = config
        self.provider = Provider(config["issuer"])
        self.lock = threading.Lock()
        # state -> what the login's return must match; session id -> who is signed in. In memory: gone at a restart.
        self.pending = {}
        self.sessions = {}
        self.seen_logout_tokens = {}

    def app_url(self, server):
        return self.config["app_url"] or f"http://{self.config['host']}:{server.server_address[1]}"

    def client_auth(self, form):
        """client_secret_basic for a confidential client (RFC 6749 2.3.1 encodes both parts); client_id alone for a public one."""
        secret = self.config["client_secret"]
        if secret is None:
            return {**form, "client_id": self.config["client_id"]}, {}
        pair = f"{urllib.parse.quote(self.config['client_id'], safe='')}:{urllib.parse.quote(secret, safe='')}"
        return form, {"authorization": "Basic " + base64.b64encode(pair.encode()).decode()}

    def start_login(self, base):
        metadata = self.provider.metadata()
        state, nonce = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        verifier, challenge = pkce_pair()
        with self.lock:
            now = time.time()
            for key in [key for key, login in self.pending.items() if login["at"] < now - PENDING_LOGIN_SECONDS]:
                del self.pending[key]
            self.pending[state] = {"nonce": nonce, "verifier": verifier, "at": now}
        query = {
            "response_type": "code",
            "client_id": self.config["client_id"],
            "redirect_uri": f"{base}/callback",
            "scope": self.config["scope"],
            "state": state,
            "nonce": nonce,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
        if self.config["acr_values"]:
            query["acr_values"] = self.config["acr_values"]
        return state, f"{metadata['authorization_endpoint']}?{urllib.parse.urlencode(query)}"

    def finish_login(self, base, state, code):
        """The session's claims after the code exchange, or an error code to show."""
        with self.lock:
            login = self.pending.pop(state, None)
        if login is None or login["at"] < time.time() - PENDING_LOGIN_SECONDS:
            return None, "login_expired"
        metadata = self.provider.metadata()
        form, headers = self.client_auth({
            "grant_type": "authorization_code", "code": code, "redirect_uri": f"{base}/callback", "code_verifier": login["verifier"],
        })
        status, tokens = http_json(metadata["token_endpoint"], form, headers)
        if status != 200 or "id_token" not in tokens or "access_token" not in tokens:
            return None, str(tokens.get("error", "token_request_failed"))
        try:
            claims = self.provider.verify(tokens["id_token"], self.config["client_id"])
        except jwt.PyJWTError:
            return None, "invalid_id_token"
        if not secrets.compare_digest(str(claims.get("nonce", "")), login["nonce"]):
            return None, "invalid_id_token"
        status, userinfo = http_json(metadata["userinfo_endpoint"], headers={"authorization": f"Bearer {tokens['access_token']}"})
        if status != 200 or userinfo.get("sub") != claims["sub"]:
            return None, "userinfo_failed"
        return {"claims": claims, "userinfo": userinfo, "id_token": tokens["id_token"]}, None

    def backchannel_logout(self, logout_token):
        """Ends the sessions a verified logout token names (OpenID Connect Back-Channel Logout 1.0, 2.6); False when refused."""
        try:
            header = jwt.get_unverified_header(logout_token)
            claims = self.provider.verify(logout_token, self.config["client_id"], require=["jti"])
        except jwt.PyJWTError:
            return False
        events = claims.get("events")
        if header.get("typ") not in (None, "logout+jwt") or not isinstance(events, dict) or BACKCHANNEL_LOGOUT_EVENT not in events:
            return False
        if "nonce" in claims or ("sid" not in claims and "sub" not in claims):
            return False
        with self.lock:
            if claims["jti"] in self.seen_logout_tokens:
                return False
            self.seen_logout_tokens[claims["jti"]] = claims["exp"]
            for session_id, session in list(self.sessions.items()):
                signed_in = session["claims"]
                if ("sid" in claims and signed_in.get("sid") == claims["sid"]) or ("sid" not in claims and signed_in["sub"] == claims["sub"]):
                    del self.sessions[session_id]
        return True


def page(title, body):
    return f'<!doctype html><html lang="en"><meta charset="utf-8"><title>{html.escape(title)}</title><main>{body}</main></html>\n'.encode()


def cookie_of(header, name):
    for pair in (header or "").split(";"):
        key, _, value = pair.strip().partition("=")
        if key == name and value:
            return value
    return None


def handler_for(app):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format, *args):
            # The default line holds the whole request line: codes and states stay out of the log.
            pass

        def answer(self, status, body=b"", headers=()):
            self.send_response(status)
            self.send_header("cache-control", "no-store")
            if body:
                self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(body)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def cookie(self, name, value, path="/", max_age=None):
            secure = "; Secure" if app.app_url(self.server).startswith("https:") else ""
            lifetime = f"; Max-Age={max_age}" if max_age is not None else ""
            return ("set-cookie", f"{name}={value}; Path={path}; HttpOnly; SameSite=Lax{secure}{lifetime}")

        def session(self):
            session_id = cookie_of(self.headers.get("cookie"), "session")
            with app.lock:
                return session_id, app.sessions.get(session_id) if session_id else None

        def do_GET(self):
            base = app.app_url(self.server)
            url = urllib.parse.urlsplit(self.path)
            query = dict(urllib.parse.parse_qsl(url.query))
            try:
                if url.path == "/":
                    return self.home()
                if url.path == "/login":
                    state, location = app.start_login(base)
                    return self.answer(303, headers=[("location", location), self.cookie("login_state", state, "/callback", PENDING_LOGIN_SECONDS)])
                if url.path == "/callback":
                    return self.callback(base, query)
                if url.path == "/logout":
                    return self.logout(base)
                return self.answer(404, page("Not found", "<h1>Not found</h1>"))
            except (OSError, RuntimeError, ValueError, KeyError) as error:
                print(f"provider unreachable: {type(error).__name__}", file=sys.stderr, flush=True)
                return self.answer(503, page("Try again", "<h1>Signing in is unavailable right now</h1><p>Please try again in a moment.</p>"))

        def home(self):
            _, session = self.session()
            if session is None:
                return self.answer(200, page("Notes", '<h1>Notes</h1><p><a href="/login">Sign in</a></p>'))
            claims, userinfo = session["claims"], session["userinfo"]
            who = html.escape(userinfo.get("name") or userinfo.get("email") or claims["sub"])
            body = (f"<h1>Notes</h1><p>Signed in as <strong>{who}</strong> ({html.escape(str(userinfo.get('email', '')))}),"
                    f" acr <code>{html.escape(str(claims.get('acr', '')))}</code>.</p><p><a href=\"/logout\">Sign out</a></p>")
            return self.answer(200, page("Notes", body))

        def callback(self, base, query):
            state = cookie_of(self.headers.get("cookie"), "login_state")
            clear_state = self.cookie("login_state", "", "/callback", 0)
            if state is None or not secrets.compare_digest(query.get("state", ""), state):
                return self.answer(400, page("Sign-in failed", "<h1>Sign-in failed</h1><p>This sign-in was not started here. <a href=\"/login\">Sign in</a></p>"), [clear_state])
            # RFC 9207: an answer naming another issuer came from another provider (a mix-up attack).
            if query.get("iss", app.config["issuer"]) != app.config["issuer"]:
                with app.lock:
                    app.pending.pop(state, None)
                return self.answer(400, page("Sign-in failed", "<h1>Sign-in failed</h1><p>The answer came from another provider. <a href=\"/login\">Sign in</a></p>"), [clear_state])
            if "error" in query:
                with app.lock:
                    app.pending.pop(state, None)
                error = html.escape(query["error"])
                return self.answer(400, page("Sign-in failed", f"<h1>Sign-in failed</h1><p>The provider said <code>{error}</code>. <a href=\"/login\">Sign in</a></p>"), [clear_state])
            session, error = app.finish_login(base, state, query.get("code", ""))
            if session is None:
                print(f"sign-in failed: {error}", file=sys.stderr, flush=True)
                return self.answer(400, page("Sign-in failed", f"<h1>Sign-in failed</h1><p><code>{html.escape(error)}</code>. <a href=\"/login\">Sign in</a></p>"), [clear_state])
            session_id = secrets.token_urlsafe(32)
            with app.lock:
                app.sessions[session_id] = session
            return self.answer(303, headers=[("location", "/"), clear_state, self.cookie("session", session_id)])

        def logout(self, base):
            session_id, session = self.session()
            with app.lock:
                app.sessions.pop(session_id, None)
            clear = self.cookie("session", "", "/", 0)
            if session is None:
                return self.answer(303, headers=[("location", "/"), clear])
            # RP-initiated logout: the provider ends its session (and the page's question comes from it), then sends the visitor back.
            query = {"id_token_hint": session["id_token"], "post_logout_redirect_uri": f"{base}/", "client_id": app.config["client_id"]}
            location = f"{app.provider.metadata()['end_session_endpoint']}?{urllib.parse.urlencode(query)}"
            return self.answer(303, headers=[("location", location), clear])

        def do_POST(self):
            if urllib.parse.urlsplit(self.path).path != "/backchannel-logout":
                return self.answer(404, page("Not found", "<h1>Not found</h1>"))
            length = int(self.headers.get("content-length") or 0)
            if length > 16384:
                return self.answer(413)
            form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode("utf-8", "replace")))
            try:
                ended = app.backchannel_logout(form.get("logout_token", ""))
            except (OSError, RuntimeError, ValueError, KeyError):
                ended = False
            if not ended:
                body = json.dumps({"error": "invalid_request"}).encode()
                self.send_response(400)
                self.send_header("content-type", "application/json")
                self.send_header("cache-control", "no-store")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                return self.wfile.write(body)
            return self.answer(200)

    return Handler


def main():
    try:
        config = config_from_env(os.environ)
    except (ConfigError, ValueError) as error:
        print(error, file=sys.stderr)
        sys.exit(2)
    app = App(config)
    server = ThreadingHTTPServer((config["host"], config["port"]), handler_for(app))
    print(f"oidc product on http://{config['host']}:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
