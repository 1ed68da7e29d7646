import { z } from 'zod';
import { fromClerkTime } from './clerk-event';

const clerkTime = z.number();
const optionalText = z.string().nullish();

/** The fields of a Clerk user identity-sync reads. */
export const clerkUserSchema = z.object({
  id: z.string(),
  updated_at: clerkTime,
  created_at: clerkTime.optional(),
  first_name: optionalText,
  last_name: optionalText,
  username: optionalText,
  image_url: optionalText,
  primary_email_address_id: optionalText,
  email_addresses: z.array(z.object({ id: z.string(), email_address: z.string() })).optional(),
});

/** The fields of a Clerk organization identity-sync reads. */
export const clerkOrganizationSchema = z.object({
  id: z.string(),
  updated_at: clerkTime,
  created_at: clerkTime.optional(),
  name: z.string(),
  slug: optionalText,
  image_url: optionalText,
  max_allowed_memberships: z.number().nullish(),
});

/** The fields of a Clerk organization membership identity-sync reads. */
export const clerkMembershipSchema = z.object({
  id: z.string(),
  updated_at: clerkTime,
  created_at: clerkTime.optional(),
  role: z.string(),
  organization: z.object({ id: z.string() }),
  public_user_data: z.object({ user_id: z.string() }),
});

/** What a `*.deleted` event carries for sure: the id (memberships also carry the organization and user). */
export const clerkDeletedSchema = z.object({
  id: z.string(),
  organization: z.object({ id: z.string() }).optional(),
  public_user_data: z.object({ user_id: z.string() }).optional(),
});

/** A user's stored fields. */
export function userFields(user: z.infer<typeof clerkUserSchema>): Record<string, unknown> {
  const primary =
    user.email_addresses?.find((address) => address.id === user.primary_email_address_id) ?? user.email_addresses?.[0];
  return {
    clerkUserId: user.id,
    email: primary?.email_address ?? null,
    firstName: user.first_name ?? null,
    lastName: user.last_name ?? null,
    username: user.username ?? null,
    imageUrl: user.image_url ?? null,
    clerkCreatedAt: fromClerkTime(user.created_at),
  };
}

/** An organization's stored fields, on its workspace. */
export function organizationFields(organization: z.infer<typeof clerkOrganizationSchema>): Record<string, unknown> {
  return {
    clerkOrganizationId: organization.id,
    name: organization.name,
    slug: organization.slug ?? null,
    imageUrl: organization.image_url ?? null,
    maxAllowedMemberships: organization.max_allowed_memberships ?? null,
    clerkCreatedAt: fromClerkTime(organization.created_at),
  };
}

/** A membership's stored fields. */
export function membershipFields(membership: z.infer<typeof clerkMembershipSchema>): Record<string, unknown> {
  return {
    clerkMembershipId: membership.id,
    workspaceId: membership.organization.id,
    userId: membership.public_user_data.user_id,
    role: membership.role,
    clerkCreatedAt: fromClerkTime(membership.created_at),
  };
}
