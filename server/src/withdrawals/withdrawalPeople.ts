import type { Db } from '@walletd/core';
import type { WithdrawalPeople } from '@walletd/schemas';

export type { WithdrawalPeople };

interface Row {
  id: number;
  request_id: number | null;
  created_by_key: number | null;
}

const keyName = (k: { id: number; name: string | null }) => (k.name ? `API key "${k.name}" (#${k.id})` : `API key #${k.id}`);

/** Looked up for a page of withdrawals at once: four queries whatever the page's size. */
export async function withdrawalPeople(db: Db, rows: Row[]): Promise<Map<number, WithdrawalPeople>> {
  const requestIds = [...new Set(rows.map((r) => r.request_id).filter((id): id is number => id !== null))];
  const requests = (await db('withdrawal_requests as r')
    .leftJoin('members as m', 'm.id', 'r.proposed_by_member')
    .whereIn('r.id', requestIds)
    .select('r.id', 'r.proposed_by_key', 'm.email')) as { id: number; proposed_by_key: number | null; email: string | null }[];
  const votes = (await db('withdrawal_approvals as a')
    .join('members as m', 'm.id', 'a.member_id')
    .whereIn('a.request_id', requestIds)
    .where('a.decision', 'approve')
    .orderBy('a.id')
    .select('a.request_id', 'm.email', 'a.created_at')) as { request_id: number; email: string; created_at: Date }[];
  const keyIds = [
    ...new Set([...rows.map((r) => r.created_by_key), ...requests.map((r) => r.proposed_by_key)].filter((id): id is number => id !== null)),
  ];
  const keys = new Map(
    ((await db('api_keys').whereIn('id', keyIds).select('id', 'name')) as { id: number; name: string | null }[]).map((k) => [
      k.id,
      keyName(k),
    ]),
  );
  const byRequest = new Map(requests.map((r) => [r.id, r]));
  const out = new Map<number, WithdrawalPeople>();
  for (const w of rows) {
    const req = w.request_id === null ? undefined : byRequest.get(w.request_id);
    const proposedBy = req
      ? (req.email ?? (req.proposed_by_key !== null ? (keys.get(req.proposed_by_key) ?? null) : null))
      : w.created_by_key !== null
        ? (keys.get(w.created_by_key) ?? null)
        : null;
    const approvedBy = votes.filter((v) => v.request_id === w.request_id).map((v) => ({ email: v.email, at: v.created_at.toISOString() }));
    out.set(w.id, { proposedBy, approvedBy });
  }
  return out;
}
