import type { Router } from 'express';
import { z } from 'zod';
import { rateLimit } from '../../commands/identity/rateLimit.js';
import { DomainError, tooMany } from '../../domain/errors.js';
import type { ApiContext } from '../apiContext.js';
import type { MapsProvider } from '../../infra/maps/port.js';
import { authenticate } from '../auth.js';
import { defineRoute, type ErrorAnswers } from '../route.js';
import { queryLatitude, queryLongitude } from '../schemas.js';

/** An empty sessionToken is the same as none: the provider gets no session. */
const sessionToken = z
  .string()
  .max(64)
  .optional()
  .transform((v) => v || undefined);

export const ReverseQuery = z.object({ lat: queryLatitude, lng: queryLongitude });
// At least 2 characters once trimmed: the pattern says so, since minLength counts the spaces around it.
export const AutocompleteQuery = z.object({
  query: z.string().trim().min(2).max(120).openapi({ pattern: '^\\s*\\S[\\s\\S]*\\S\\s*$' }),
  sessionToken,
});
export const PlaceQuery = z.object({ placeId: z.string().trim().min(1).max(300), sessionToken });

const AddressComponent = z
  .object({ long_name: z.string(), short_name: z.string(), types: z.array(z.string()) })
  .openapi('AddressComponent');
const ReverseAnswer = z
  .union([
    z.object({ address: z.string(), components: z.array(AddressComponent), placeId: z.string() }),
    z.object({ address: z.null(), components: z.null() }),
  ])
  .openapi('ReverseGeocode');
const Suggestion = z
  .object({ placeId: z.string(), description: z.string(), mainText: z.string(), secondaryText: z.string().nullable() })
  .openapi('PlaceSuggestion');
const PlaceAnswer = z
  .object({ placeId: z.string(), address: z.string().nullable(), latitude: z.number(), longitude: z.number() })
  .openapi('PlaceLocation');

const failures = {
  502: { ids: ['UpstreamError'], description: 'UpstreamError: the maps provider failed' },
  503: { ids: ['GeocodingNotConfigured'], description: 'GeocodingNotConfigured: no maps-provider key on this server' },
} satisfies ErrorAnswers;

/** Spec 4.14: a proxy to the maps provider, so the key never ships in the apps. */
export const geocodingRoutes = (ctx: ApiContext, router: Router): void => {
  const tags = ['geocoding'];
  // Public and billed per call by the provider: a caller without a token must not turn us into a free
  // geocoder, nor run up the bill.
  const reversePerIp = rateLimit(
    ctx.pool,
    'geocoding-reverse-ip',
    ctx.config.GEOCODING_REVERSE_PER_IP_PER_MINUTE,
    60_000,
  );
  const maps = (): MapsProvider => {
    if (!ctx.providers.maps)
      throw new DomainError('unavailable', 'GeocodingNotConfigured', 'Geocoding is not configured on this server.');
    return ctx.providers.maps;
  };

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/geocoding/reverse',
      summary: 'Nearest address to a point (public)',
      tags,
      auth: false,
      query: ReverseQuery,
      responses: {
        200: {
          description: 'The nearest address, or address and components null when nothing matches',
          schema: ReverseAnswer,
        },
      },
      errors: {
        ...failures,
        429: { ids: ['Cooldown'], description: 'Cooldown: too many lookups from this address (Retry-After)' },
      },
    },
    async ({ query, req }) => {
      const provider = maps();
      const v = await reversePerIp.hit(req.ip ?? 'unknown');
      if (!v.allowed)
        throw tooMany('Cooldown', 'Too many address lookups from this address; try again later.', {
          retryAfterSeconds: v.retryAfterSeconds,
        });
      return (await provider.reverseGeocode(query.lat, query.lng)) ?? { address: null, components: null };
    },
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/geocoding/autocomplete',
      summary: 'Address predictions, biased to Venezuela',
      tags,
      guards: [authenticate(ctx.auth)],
      query: AutocompleteQuery,
      responses: {
        200: { description: 'Predictions (empty when none)', schema: z.object({ suggestions: z.array(Suggestion) }) },
      },
      errors: failures,
    },
    async ({ query }) => ({ suggestions: await maps().autocomplete(query.query, query.sessionToken) }),
  );

  defineRoute(
    router,
    ctx.openapi,
    {
      method: 'get',
      path: '/geocoding/place',
      summary: 'A place id to its precise location (reuse the autocomplete sessionToken)',
      tags,
      guards: [authenticate(ctx.auth)],
      query: PlaceQuery,
      responses: { 200: { description: 'The place', schema: PlaceAnswer } },
      errors: failures,
    },
    async ({ query }) => maps().placeDetails(query.placeId, query.sessionToken),
  );
};
