import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { answerJson, listen } from './httpStandIn.js';

const recorded = (name: string): unknown =>
  JSON.parse(readFileSync(join(import.meta.dirname, 'googleMaps', `${name}.json`), 'utf8'));

/** The answers the stand-in serves, by what was asked; anything else asked finds nothing. */
const GEOCODE: Record<string, string> = { '10.4961,-66.8495': 'geocode-altamira', '10.6,-66.9': 'geocode-sea' };
const AUTOCOMPLETE: Record<string, string> = { Altamira: 'autocomplete-altamira' };
const DETAILS: Record<string, string> = { ChIJ3Y2yKXVYKowR2VvN0XnEJk0: 'details-plaza-altamira' };

const LATLNG = /^-?\d{1,2}(\.\d+)?,-?\d{1,3}(\.\d+)?$/;

/**
 * A local stand-in for the Google Maps Geocoding and Places web services (the JSON dialect below
 * /maps/api), serving answers recorded in the shape Google gives them (googleMaps/*.json). It checks what
 * Google checks: every request carries `key` (REQUEST_DENIED without it or with another), a reverse
 * lookup a `latlng` pair, an autocomplete an `input`, a details lookup a `place_id` (INVALID_REQUEST
 * without); an unknown place is NOT_FOUND. Like Google it answers these with HTTP 200 and the status in
 * the body. It keeps every query it got.
 */
export const startGoogleMapsStandIn = async (key: string) => {
  const queries: { path: string; params: Record<string, string> }[] = [];
  const denied = (message: string) => ({ error_message: message, results: [], status: 'REQUEST_DENIED' });
  const invalid = (message: string) => ({ error_message: message, results: [], status: 'INVALID_REQUEST' });

  const answer = (path: string, q: URLSearchParams): [number, unknown] => {
    if (!q.get('key'))
      return [200, denied('You must use an API key to authenticate each request to Google Maps Platform APIs.')];
    if (q.get('key') !== key) return [200, denied('The provided API key is invalid.')];
    switch (path) {
      case '/maps/api/geocode/json': {
        const latlng = q.get('latlng') ?? '';
        if (!LATLNG.test(latlng)) return [200, invalid("Invalid request. Invalid 'latlng' parameter.")];
        return [200, recorded(GEOCODE[latlng] ?? 'geocode-sea')];
      }
      case '/maps/api/place/autocomplete/json': {
        const input = q.get('input');
        if (!input) return [200, { predictions: [], status: 'INVALID_REQUEST' }];
        return [200, recorded(AUTOCOMPLETE[input] ?? 'autocomplete-none')];
      }
      case '/maps/api/place/details/json': {
        const placeId = q.get('place_id');
        if (!placeId) return [200, { html_attributions: [], status: 'INVALID_REQUEST' }];
        return [200, DETAILS[placeId] ? recorded(DETAILS[placeId]) : { html_attributions: [], status: 'NOT_FOUND' }];
      }
      default:
        return [404, { error: 'not found' }];
    }
  };

  const server = await listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    queries.push({ path: url.pathname, params: Object.fromEntries(url.searchParams) });
    const [status, body] = answer(url.pathname, url.searchParams);
    answerJson(res, status, body);
  });
  return { baseUrl: `${server.url}/maps/api`, queries, close: server.close };
};
