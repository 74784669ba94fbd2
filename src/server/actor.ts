/** Who a request acts for: the one type the serve layer passes to the audit trail and, in firm mode, to the walls. */

export interface Actor {
  user: string;
  role: 'admin' | 'reviewer' | 'token';
  address: string;
}

/** The actor of a single-token server: whoever holds the token, at the request's remote address. */
export function tokenActor(address: string): Actor {
  return { user: 'token holder', role: 'token', address };
}
