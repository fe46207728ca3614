/**
 * The loopback port the demo serves its echo resource on, so that every start lists the same card URL and serves
 * the same card (`SERVICE_DEMO_PORT` chooses another; a port already taken gives way to a free one, and the demo
 * says so).
 */
export const DEMO_PORT = 4402;
