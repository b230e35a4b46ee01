import { z } from 'zod';
import { DomainError } from '../../domain/errors.js';
import type { Logger } from '../logger.js';
import type { MapsProvider } from './port.js';

/*
 * The provider speaks the Google Maps Geocoding / Places (legacy JSON web service) dialect, below one base
 * URL (MAPS_PROVIDER_URL), the key in the `key` query parameter, answers in Spanish (`language=es`):
 *
 *   GET {base}/geocode/json?latlng={lat},{lng}
 *     → {status, results: [{formatted_address, place_id, address_components: [{long_name, short_name, types}]}]}
 *   GET {base}/place/autocomplete/json?input={text}&region=ve[&sessiontoken={token}]
 *     → {status, predictions: [{place_id, description, structured_formatting?: {main_text, secondary_text?}}]}
 *   GET {base}/place/details/json?place_id={id}&fields=place_id,formatted_address,geometry/location[&sessiontoken={token}]
 *     → {status, result: {place_id?, formatted_address?, geometry?: {location: {lat, lng}}}}
 *
 * `status` is OK, or ZERO_RESULTS for "nothing matched" (reverse: null address; autocomplete: no
 * suggestions). Every other status (REQUEST_DENIED, OVER_QUERY_LIMIT, INVALID_REQUEST, NOT_FOUND …), a
 * non-2xx answer, a body that is not this JSON, no answer within the timeout, or a place without geometry
 * is an upstream failure. `region=ve` biases autocomplete to Venezuela without excluding other countries.
 */

const Status = z.string();

const GeocodeAnswer = z.object({
  status: Status,
  results: z
    .array(
      z.object({
        formatted_address: z.string(),
        place_id: z.string(),
        address_components: z.array(
          z.object({ long_name: z.string(), short_name: z.string(), types: z.array(z.string()) }),
        ),
      }),
    )
    .optional(),
});

const AutocompleteAnswer = z.object({
  status: Status,
  predictions: z
    .array(
      z.object({
        place_id: z.string(),
        description: z.string(),
        structured_formatting: z.object({ main_text: z.string(), secondary_text: z.string().optional() }).optional(),
      }),
    )
    .optional(),
});

const DetailsAnswer = z.object({
  status: Status,
  result: z
    .object({
      place_id: z.string().optional(),
      formatted_address: z.string().optional(),
      geometry: z
        .object({ location: z.object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180) }) })
        .optional(),
    })
    .optional(),
});

/** The caller learns only that the provider failed; the reason goes to the log. */
class MapsFailure extends Error {}

export const upstreamError = () => new DomainError('upstream', 'UpstreamError', 'The maps provider failed to answer.');

export interface HttpMapsOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  logger: Pick<Logger, 'warn'>;
}

export const createHttpMapsProvider = ({ baseUrl, apiKey, timeoutMs, logger }: HttpMapsOptions): MapsProvider => {
  const base = baseUrl.replace(/\/+$/, '');

  const call = async <T extends z.ZodType<{ status: string }>>(
    operation: string,
    path: string,
    params: Record<string, string | undefined>,
    schema: T,
  ): Promise<z.output<T>> => {
    const query = new URLSearchParams({ language: 'es' });
    for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, v);
    query.set('key', apiKey);
    try {
      let res: Response;
      try {
        res = await fetch(`${base}${path}?${query}`, {
          headers: { accept: 'application/json' },
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        // The URL carries the key: log the kind of failure only.
        throw new MapsFailure(`unreachable (${(err as Error).name})`);
      }
      const text = await res.text().catch((err: Error) => {
        throw new MapsFailure(`body not read (${err.name})`);
      });
      if (!res.ok) throw new MapsFailure(`http ${res.status}`);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new MapsFailure('body is not JSON');
      }
      const parsed = schema.safeParse(json);
      if (!parsed.success) throw new MapsFailure('unexpected answer shape');
      const status = parsed.data.status;
      if (status !== 'OK' && status !== 'ZERO_RESULTS') {
        const said = (json as { error_message?: unknown }).error_message;
        throw new MapsFailure(
          `status ${status.slice(0, 40)}${typeof said === 'string' ? `: ${said.slice(0, 200)}` : ''}`,
        );
      }
      return parsed.data;
    } catch (err) {
      if (!(err instanceof MapsFailure)) throw err;
      logger.warn({ maps: operation, reason: err.message }, 'maps provider failed');
      throw upstreamError();
    }
  };

  return {
    async reverseGeocode(lat, lng) {
      const a = await call('reverse', '/geocode/json', { latlng: `${lat},${lng}` }, GeocodeAnswer);
      const first = a.status === 'OK' ? a.results?.[0] : undefined;
      if (!first) return null;
      return {
        address: first.formatted_address,
        components: first.address_components.map((c) => ({
          long_name: c.long_name,
          short_name: c.short_name,
          types: c.types,
        })),
        placeId: first.place_id,
      };
    },

    async autocomplete(input, sessionToken) {
      const a = await call(
        'autocomplete',
        '/place/autocomplete/json',
        { input, region: 've', sessiontoken: sessionToken },
        AutocompleteAnswer,
      );
      if (a.status !== 'OK') return [];
      return (a.predictions ?? []).map((p) => ({
        placeId: p.place_id,
        description: p.description,
        mainText: p.structured_formatting?.main_text ?? p.description,
        secondaryText: p.structured_formatting?.secondary_text ?? null,
      }));
    },

    async placeDetails(placeId, sessionToken) {
      const a = await call(
        'place',
        '/place/details/json',
        { place_id: placeId, fields: 'place_id,formatted_address,geometry/location', sessiontoken: sessionToken },
        DetailsAnswer,
      );
      const location = a.status === 'OK' ? a.result?.geometry?.location : undefined;
      if (!location) {
        logger.warn({ maps: 'place', reason: `no geometry (status ${a.status.slice(0, 40)})` }, 'maps provider failed');
        throw upstreamError();
      }
      return {
        placeId: a.result?.place_id ?? placeId,
        address: a.result?.formatted_address ?? null,
        latitude: location.lat,
        longitude: location.lng,
      };
    },
  };
};
