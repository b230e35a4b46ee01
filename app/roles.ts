/** What one process of the service runs (`--role`); with none named it runs them all. */
export type ProcessRole = 'api' | 'projector' | 'scheduler' | 'gateway';
export const ALL_ROLES: ProcessRole[] = ['api', 'projector', 'scheduler', 'gateway'];
