/** Who is asking: the signed-in user of a firm server, or whoever holds a single-token server's token. */
export interface Actor {
  user: string;
  role: 'admin' | 'reviewer' | 'token';
  address: string;
}
