/** Request bodies of the accounts calls, with the field names of spec §3. */

/** The context every login call carries. */
export interface LoginContextFields {
  readonly insecure_allowed_orgs: readonly string[]
  readonly resource_type: string | null
  readonly cluster_name: string | null
}

export interface LoginPayload extends LoginContextFields {
  readonly email: string
  readonly password: string
}

export interface RegisterPayload {
  readonly first_name: string
  readonly last_name: string
  readonly email: string
  readonly password: string
  readonly confirm_password: string
}

export interface GoogleLoginPayload extends LoginContextFields {
  readonly email: string
  readonly login_method: 'GOOGLE'
}

export interface SsoStartPayload extends LoginContextFields {
  readonly email: string
  readonly source: 'login' | 'register'
  readonly redirect: string | null
}

export interface SsoLoginPayload extends LoginContextFields {
  readonly email: string
  readonly login_method: 'SAML' | 'OIDC'
  readonly id: string
}

export interface SsoRegisterPayload {
  readonly register_method: 'SAML' | 'OIDC'
  readonly id: string
}

export interface SetPasswordPayload {
  readonly token: string
  readonly password: string
  readonly confirm_password: string
}
