import type { Knex } from 'knex';

/**
 * The audit log is append-only in the database itself (issue 30): a trigger refuses every UPDATE
 * and DELETE of `audit_log`, so no code path, console bug or hand-typed SQL short of dropping the
 * trigger rewrites history. Its rows used to be deleted with their company (ON DELETE CASCADE),
 * which the trigger would now refuse, making a company undeletable; the log is meant to outlive
 * what it describes, so `company_id` keeps its value and loses the foreign key (nothing in walletd
 * deletes a company today).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE audit_log DROP CONSTRAINT IF EXISTS audit_log_company_id_foreign');
  await knex.raw(`CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
    END $$`);
  await knex.raw(`CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER audit_log_append_only ON audit_log');
  await knex.raw('DROP FUNCTION audit_log_append_only()');
  await knex.raw(`ALTER TABLE audit_log ADD CONSTRAINT audit_log_company_id_foreign
    FOREIGN KEY (company_id) REFERENCES companies(id) ON DELETE CASCADE`);
}
