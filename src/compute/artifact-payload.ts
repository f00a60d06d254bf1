// A compute job's payload as stored (compute_jobs.payload, JSON) is read back through the
// artifact's schema: a row another version wrote, or one edited by hand, is refused with its
// reason instead of reaching the engine as whatever it happens to hold.

import { schemaErrors } from '../catalog/schema-check.ts';
import { type Artifact, ArtifactSchema } from './compute-driver.ts';

export class BadPayload extends Error {
  override name = 'BadPayload';
}

/** The artifact a job's payload holds; BadPayload (with the checker's first reason) when it holds none. */
export function parseArtifact(payload: string): Artifact {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch (error) {
    throw new BadPayload(`a compute job's payload is not JSON: ${(error as Error).message}`);
  }
  const errors = schemaErrors(ArtifactSchema, value);
  if (errors.length > 0)
    throw new BadPayload(
      `a compute job's payload is no artifact: ${errors[0]!.instancePath || '/'} ${errors[0]!.message}`,
    );
  return value as Artifact;
}

/** The artifact, or null where the payload holds none (a failure being recorded must not fail on it). */
export function artifactOrNull(payload: string): Artifact | null {
  try {
    return parseArtifact(payload);
  } catch {
    return null;
  }
}
