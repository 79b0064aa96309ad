import { createEmptyDatabase, seedWatchedAddress } from '@walletd/test-harness';
import { migrateLatest, migrateRollbackAll } from './createDb';

describe('migrations', () => {
  it('go up, down and up again cleanly', async () => {
    const t = await createEmptyDatabase();
    try {
      const tables = async () =>
        (await t.db.raw(`select tablename from pg_tables where schemaname = 'public' and tablename not like 'knex_%' order by 1`)).rows.map(
          (r: { tablename: string }) => r.tablename,
        );
      expect(await migrateLatest(t.db)).toEqual([
        '001_initial',
        '002_withdrawals',
        '003_mempool',
        '004_pending_delivery_unique',
        '005_chain_health',
        '006_indexer_fencing',
        '007_withdrawal_claims',
        '008_withdrawal_output_memos',
        '009_change_addresses',
        '010_addressing',
        '011_unlogged_rate_limits',
        '012_delivery_due_order',
        '013_polkadot_transfer_key',
        '014_withdrawal_reservations',
        '015_delivery_by_event',
        '016_endpoint_budgets',
        '017_member_sign_in',
        '018_vote_provenance',
        '019_audit_append_only',
        '020_history_indexes',
        '023_delivery_retention',
        '024_reconciliation',
        '025_sweep_rules',
        '026_balance_ledger',
        '027_retention',
        '028_search_indexes',
        '029_gas_station',
        '030_sweep_fee_rate',
        '031_archived_months',
        '032_detached_confirmed',
        '033_reconciliation_explained',
        '035_quorum_integrity',
        '039_lease_holder',
        '040_claim_function',
        '036_member_passkeys',
        '037_request_sending',
        '038_address_book',
        '041_claim_room_for_others',
        '042_token_held_keys',
        '043_withdrawal_attempts',
        '044_event_trace_context',
        '045_auto_bump',
        '046_kms_held_keys',
        '047_delivery_event_time',
        '048_claim_says_busy',
        '049_pass_backed_off_at_insert',
        '050_claim_due_by_index',
        '051_claim_first_attempt_here',
      ]);
      const first = await tables();
      expect(first).toEqual(expect.arrayContaining(['companies', 'api_keys', 'wallets', 'transfers', 'webhook_deliveries', 'events']));
      await migrateRollbackAll(t.db);
      expect(await tables()).toEqual([]);
      await migrateLatest(t.db);
      expect(await tables()).toEqual(first);
      // numeric(78,0) holds a full uint256 exactly.
      const max = ((1n << 256n) - 1n).toString();
      const { rows } = await t.db.raw(`select ?::numeric(78,0)::text as v`, [max]);
      expect(rows[0].v).toBe(max);
    } finally {
      await t.drop();
    }
  });

  it('004 keeps the oldest of duplicate pending deliveries and ends the others failed', async () => {
    const t = await createEmptyDatabase();
    try {
      for (let i = 0; i < 3; i++) await t.db.migrate.up();
      const [company] = await t.db('companies').insert({ name: 'c' }).returning('id');
      const [hook] = await t
        .db('webhooks')
        .insert({ company_id: company.id, type: 'api', config: {}, events: ['*'], secret_envelope: {} })
        .returning('id');
      const [event] = await t
        .db('events')
        .insert({
          id: '00000000-0000-4000-8000-000000000001',
          company_id: company.id,
          type: 'deposit.detected',
          chain: 'ethereum',
          network: 'sepolia',
          body: '{}',
        })
        .returning('id');
      const row = { webhook_id: hook.id, event_id: event.id, event_type: 'deposit.detected', status: 'pending' };
      const ids = (
        await t
          .db('webhook_deliveries')
          .insert([row, row, row, { ...row, status: 'delivered' }])
          .returning('id')
      ).map((r) => r.id);
      await migrateLatest(t.db);
      const after = await t.db('webhook_deliveries').orderBy('id').select('id', 'status', 'last_error');
      expect(after.map((r) => r.status)).toEqual(['pending', 'failed', 'failed', 'delivered']);
      expect(after[0].id).toBe(ids[0]);
      expect(after[1].last_error).toMatch(/^superseded/);
      await expect(t.db('webhook_deliveries').insert(row)).rejects.toThrow(/webhook_deliveries_one_pending/);
    } finally {
      await t.drop();
    }
  });
  it('013 gives stored Polkadot transfers their key by extrinsic hash, and back', async () => {
    const t = await createEmptyDatabase();
    try {
      for (let i = 0; i < 12; i++) await t.db.migrate.up();
      const [company] = await t.db('companies').insert({ name: 'c' }).returning('id');
      const walletId = await seedWatchedAddress(t.db, company.id, '0x00000000000000000000000000000000000000aa');
      const address = await t.db('addresses').where({ wallet_id: walletId }).first('id');
      const hash = `0x${'4f'.repeat(32)}`;
      const row = {
        company_id: company.id,
        wallet_id: walletId,
        address_id: address.id,
        chain: 'polkadot',
        network: 'mainnet',
        tx_hash: hash,
        tx_key: '18468942-2',
        event_index: 45,
        direction: 'incoming',
        event_type: 'balances_transfer',
        asset_key: 'polkadot:mainnet:dot',
        amount: '176556075744',
        to_address: '12y2M12CHhtZy583XyiaXj2tAHB9bj4PxEazyErDp7yGjfFM',
        status: 'pending',
        extra: { extrinsicIndex: 2 },
      };
      await t.db('transfers').insert([row, { ...row, chain: 'ethereum', tx_key: hash, asset_key: 'ethereum:mainnet:eth' }]);
      await t.db.migrate.up();
      const keys = async () => (await t.db('transfers').orderBy('chain').select('chain', 'tx_key')).map((r) => `${r.chain} ${r.tx_key}`);
      expect(await keys()).toEqual([`ethereum ${hash}`, `polkadot 18468942-${hash}`]);
      await t.db.migrate.down();
      expect(await keys()).toEqual([`ethereum ${hash}`, 'polkadot 18468942-2']);
    } finally {
      await t.drop();
    }
  });

  it('019 makes audit_log append-only: UPDATE and DELETE are refused, and a company can still be deleted with its log kept', async () => {
    const t = await createEmptyDatabase();
    try {
      await migrateLatest(t.db);
      const [company] = await t.db('companies').insert({ name: 'c' }).returning('id');
      const [row] = await t
        .db('audit_log')
        .insert({ company_id: company.id, actor_type: 'member', actor_id: '1', action: 'policy.created' })
        .returning('id');
      await expect(t.db('audit_log').where({ id: row.id }).update({ action: 'nothing.happened' })).rejects.toThrow(
        /audit_log is append-only: UPDATE refused/,
      );
      await expect(t.db('audit_log').where({ id: row.id }).delete()).rejects.toThrow(/audit_log is append-only: DELETE refused/);
      await t.db('companies').where({ id: company.id }).delete();
      expect(await t.db('audit_log').select('company_id', 'action')).toEqual([{ company_id: company.id, action: 'policy.created' }]);
    } finally {
      await t.drop();
    }
  });
});
