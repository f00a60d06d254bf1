// The signed-in account, shared by the shell and the pages that show or change it.

import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Account } from './api.ts';

export interface AccountState {
  account: Account | null;
  refresh: () => Promise<void>;
}

export const AccountContext = createContext<AccountState>({ account: null, refresh: async () => {} });

export const useAccount = (): AccountState => useContext(AccountContext);
