import { hash, verify } from '@node-rs/argon2';
import { conflict, forbidden, notFound, unauthorized, validationError } from '../../domain/errors.js';
import type { CommandDeps } from '../deps.js';
import type { Db } from '../../infra/db/database.js';
import { announceSessionChange } from '../../infra/identity/sessionChanges.js';
import { newOpaqueToken, sha256 } from '../../infra/identity/secrets.js';

type Deps = Pick<CommandDeps, 'clock' | 'config' | 'db' | 'logger' | 'bus' | 'providers'>;

export interface AdminRow {
  id: number;
  email: string;
  name: string;
  super_admin: boolean;
  auditor: boolean;
  all_cities: boolean;
  city_ids: number[];
  confirmed_at: Date | null;
  is_active: boolean;
  pending_email: string | null;
  created_at: Date;
}

type TokenPurpose = 'confirm_account' | 'recover_password' | 'confirm_email';

const ADMIN_COLUMNS = [
  'id',
  'email',
  'name',
  'super_admin',
  'auditor',
  'all_cities',
  'city_ids',
  'confirmed_at',
  'is_active',
  'pending_email',
  'created_at',
] as const;

/** Whether a change gives an admin a city it does not have: nobody widens their own rights (docs/decisions/0072). */
const widensCities = (
  admin: { all_cities: boolean; city_ids: number[] },
  patch: { allCities?: boolean; cityIds?: number[] },
): boolean =>
  !admin.all_cities && (patch.allCities === true || (patch.cityIds ?? []).some((c) => !admin.city_ids.includes(c)));

/** Argon2id with the library's defaults (memory-hard, OWASP-level parameters). */
export const hashPassword = (password: string): Promise<string> => hash(password);

/** Compared against when the email is unknown, so that a miss costs as much time as a wrong password. */
let decoyHash: Promise<string> | null = null;

export const findAdmin = (db: Db, id: number): Promise<AdminRow | undefined> =>
  db.selectFrom('admins').select(ADMIN_COLUMNS).where('id', '=', id).executeTakeFirst() as Promise<
    AdminRow | undefined
  >;

const normalizeEmail = (email: string) => email.trim().toLowerCase();

const checkCities = async (db: Db, cityIds: number[]) => {
  if (cityIds.length === 0) return;
  const found = await db.selectFrom('cities').select('id').where('id', 'in', cityIds).execute();
  if (found.length !== new Set(cityIds).size) throw validationError({ cityIds: ['Unknown city.'] });
};

/**
 * An auditor reads only, so it is never a super admin, and reads in every city (docs/decisions/0085): the
 * combination an invitation or a change would leave is refused on the field that asks for it.
 */
const checkAuditor = (account: { superAdmin: boolean; auditor: boolean; allCities: boolean }) => {
  if (!account.auditor) return;
  if (account.superAdmin) throw validationError({ auditor: ['An auditor cannot be a super admin.'] });
  if (!account.allCities) throw validationError({ allCities: ['An auditor reads in every city.'] });
};

const isUniqueViolation = (err: unknown) => (err as { code?: string })?.code === '23505';

/**
 * A super admin created from configuration or the CLI: confirmed, all cities. Nothing happens when a
 * super admin already exists or the email is taken.
 */
export const createSuperAdmin = async (
  db: Db,
  now: Date,
  email: string,
  password: string,
  name = 'Super admin',
): Promise<'created' | 'exists'> => {
  const existing = await db.selectFrom('admins').select('id').where('super_admin', '=', true).executeTakeFirst();
  if (existing) return 'exists';
  const inserted = await db
    .insertInto('admins')
    .values({
      email: normalizeEmail(email),
      name,
      password_hash: await hashPassword(password),
      super_admin: true,
      all_cities: true,
      city_ids: [],
      confirmed_at: now,
      pending_email: null,
      tokens_valid_after: null,
      created_at: now,
    })
    .onConflict((oc) => oc.column('email').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted ? 'created' : 'exists';
};

export const adminAccounts = (ctx: Deps) => {
  const { db } = ctx;

  const issueMailToken = async (
    adminId: number,
    purpose: TokenPurpose,
    email: string,
    hours: number,
  ): Promise<string> => {
    const now = ctx.clock.now();
    // One live token per purpose: a new message voids the older ones.
    await db
      .updateTable('admin_tokens')
      .set({ used_at: now })
      .where('admin_id', '=', adminId)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .execute();
    const token = newOpaqueToken();
    await db
      .insertInto('admin_tokens')
      .values({
        token_hash: sha256(token),
        admin_id: adminId,
        purpose,
        email,
        expires_at: new Date(now.getTime() + hours * 3_600_000),
        used_at: null,
        created_at: now,
      })
      .execute();
    return token;
  };

  /** Spends a one-time token atomically; a wrong, used or expired one names the token field. */
  const spendMailToken = async (
    token: string,
    purpose: TokenPurpose,
    email?: string,
  ): Promise<{ admin_id: number; email: string }> => {
    const now = ctx.clock.now();
    let q = db
      .updateTable('admin_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', sha256(token))
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now);
    if (email !== undefined) q = q.where('email', '=', normalizeEmail(email));
    const row = await q.returning(['admin_id', 'email']).executeTakeFirst();
    if (!row) throw validationError({ token: ['The token is invalid or has expired.'] });
    return row;
  };

  const setPassword = async (adminId: number, passwordHash: string, confirm: boolean) => {
    const now = ctx.clock.now();
    await db
      .updateTable('admins')
      .set({ password_hash: passwordHash, tokens_valid_after: now, ...(confirm ? { confirmed_at: now } : {}) })
      .where('id', '=', adminId)
      .execute();
    await announceSessionChange(ctx, { role: 'ADMIN', id: adminId });
  };

  return {
    async login(email: string, password: string): Promise<AdminRow> {
      const row = await db
        .selectFrom('admins')
        .select([...ADMIN_COLUMNS, 'password_hash'])
        .where('email', '=', normalizeEmail(email))
        .executeTakeFirst();
      const ok = row
        ? await verify(row.password_hash, password)
        : await verify(await (decoyHash ??= hashPassword(newOpaqueToken())), password);
      if (!row || !ok || !row.is_active || !row.confirmed_at)
        throw unauthorized('Unauthorized', 'Invalid credentials.');
      const { password_hash: _h, ...admin } = row;
      return admin as AdminRow;
    },

    async create(input: {
      email: string;
      name: string;
      superAdmin: boolean;
      auditor: boolean;
      allCities?: boolean;
      cityIds: number[];
    }): Promise<AdminRow> {
      const allCities = input.allCities ?? (input.superAdmin || input.auditor);
      checkAuditor({ ...input, allCities });
      await checkCities(db, input.cityIds);
      const now = ctx.clock.now();
      const email = normalizeEmail(input.email);
      let id: number;
      try {
        const row = await db
          .insertInto('admins')
          .values({
            email,
            name: input.name,
            // Nobody knows this password: the admin sets their own through confirm-account.
            password_hash: await hashPassword(newOpaqueToken()),
            super_admin: input.superAdmin,
            auditor: input.auditor,
            all_cities: allCities,
            city_ids: input.cityIds,
            confirmed_at: null,
            pending_email: null,
            tokens_valid_after: null,
            created_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        id = row.id;
      } catch (err) {
        if (isUniqueViolation(err)) throw validationError({ email: ['The email has already been taken.'] });
        throw err;
      }
      const token = await issueMailToken(id, 'confirm_account', email, ctx.config.ADMIN_INVITE_TOKEN_HOURS);
      await ctx.providers.mail.send({
        to: email,
        subject: 'Confirma tu cuenta de administrador',
        body: `Hola ${input.name}: confirma tu cuenta y elige tu contraseña con este código: ${token}`,
        data: { purpose: 'confirm_account', token },
      });
      return (await findAdmin(db, id))!;
    },

    async update(
      actorId: number,
      id: number,
      patch: {
        name?: string;
        email?: string;
        superAdmin?: boolean;
        auditor?: boolean;
        allCities?: boolean;
        cityIds?: number[];
        isActive?: boolean;
      },
    ): Promise<AdminRow> {
      const admin = await findAdmin(db, id);
      if (!admin) throw notFound('NotFound', 'No such admin.');
      const auditor = patch.auditor ?? admin.auditor;
      // Made an auditor, an admin reads in every city unless the change says otherwise (refused then).
      const allCities = patch.allCities ?? (auditor || admin.all_cities);
      checkAuditor({ superAdmin: patch.superAdmin ?? admin.super_admin, auditor, allCities });
      if (actorId === id && (patch.superAdmin === false || patch.isActive === false)) {
        throw conflict('OwnAccount', 'You cannot remove your own super admin rights or deactivate yourself.');
      }
      if (actorId === id && widensCities(admin, patch))
        throw forbidden('Forbidden', 'You cannot widen your own cities.');
      if (patch.cityIds) await checkCities(db, patch.cityIds);
      const email = patch.email === undefined ? undefined : normalizeEmail(patch.email);
      const emailChanges = email !== undefined && email !== admin.email;
      if (emailChanges) {
        const taken = await db.selectFrom('admins').select('id').where('email', '=', email).executeTakeFirst();
        if (taken) throw validationError({ email: ['The email has already been taken.'] });
      }
      const changes = {
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.superAdmin !== undefined ? { super_admin: patch.superAdmin } : {}),
        ...(patch.auditor !== undefined ? { auditor: patch.auditor } : {}),
        ...(allCities !== admin.all_cities ? { all_cities: allCities } : {}),
        ...(patch.cityIds !== undefined ? { city_ids: patch.cityIds } : {}),
        ...(patch.isActive !== undefined ? { is_active: patch.isActive } : {}),
        ...(emailChanges ? { pending_email: email } : {}),
      };
      // An empty PATCH changes nothing and answers the admin as it is.
      if (Object.keys(changes).length > 0) {
        await db.updateTable('admins').set(changes).where('id', '=', id).execute();
        await announceSessionChange(ctx, { role: 'ADMIN', id });
      }
      if (emailChanges) {
        // The address changes only once its owner proves it (POST /admin/auth/confirm-email).
        const token = await issueMailToken(id, 'confirm_email', email!, ctx.config.ADMIN_RECOVERY_TOKEN_HOURS);
        await ctx.providers.mail.send({
          to: email!,
          subject: 'Confirma tu nuevo correo',
          body: `Confirma este correo para tu cuenta de administrador con este código: ${token}`,
          data: { purpose: 'confirm_email', token },
        });
      }
      return (await findAdmin(db, id))!;
    },

    async confirmAccount(token: string, password: string): Promise<void> {
      const { admin_id } = await spendMailToken(token, 'confirm_account');
      await setPassword(admin_id, await hashPassword(password), true);
    },

    /** Sends a recovery message when an active admin has this email; silent otherwise. */
    async requestPasswordReset(rawEmail: string): Promise<void> {
      const email = normalizeEmail(rawEmail);
      const admin = await db
        .selectFrom('admins')
        .select(['id', 'name'])
        .where('email', '=', email)
        .where('is_active', '=', true)
        .executeTakeFirst();
      if (!admin) return;
      const token = await issueMailToken(admin.id, 'recover_password', email, ctx.config.ADMIN_RECOVERY_TOKEN_HOURS);
      await ctx.providers.mail.send({
        to: email,
        subject: 'Recupera tu contraseña',
        body:
          `Hola ${admin.name}: usa este código para elegir una nueva contraseña ` +
          `(vence en ${ctx.config.ADMIN_RECOVERY_TOKEN_HOURS} horas): ${token}`,
        data: { purpose: 'recover_password', token },
      });
    },

    async recoverPassword(email: string, token: string, password: string): Promise<void> {
      const { admin_id } = await spendMailToken(token, 'recover_password', email);
      await setPassword(admin_id, await hashPassword(password), true);
    },

    async confirmEmail(email: string, token: string): Promise<void> {
      const spent = await spendMailToken(token, 'confirm_email', email);
      const admin = await findAdmin(db, spent.admin_id);
      if (!admin || admin.pending_email !== spent.email)
        throw validationError({ token: ['The token is invalid or has expired.'] });
      try {
        await db
          .updateTable('admins')
          .set({ email: spent.email, pending_email: null })
          .where('id', '=', admin.id)
          .execute();
      } catch (err) {
        if (isUniqueViolation(err)) throw validationError({ email: ['The email has already been taken.'] });
        throw err;
      }
    },

    async list(limit: number, page: number): Promise<{ items: AdminRow[]; total: number }> {
      const { total } = await db
        .selectFrom('admins')
        .select((eb) => eb.fn.countAll<number>().as('total'))
        .executeTakeFirstOrThrow();
      const items = (await db
        .selectFrom('admins')
        .select(ADMIN_COLUMNS)
        .orderBy('id')
        .limit(limit)
        .offset((page - 1) * limit)
        .execute()) as AdminRow[];
      return { items, total: Number(total) };
    },
  };
};
