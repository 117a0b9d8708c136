package dev.polyhe.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One line per state change (upload, job, cancel, delete) naming the tenant, on the logger {@code polyhe.audit}. */
final class Audit {
    private static final Logger LOG = LoggerFactory.getLogger("polyhe.audit");

    private Audit() {}

    static void log(Tenant tenant, String action, String details) {
        LOG.info("audit tenant={} action={} {}", tenant.name(), action, details);
    }
}
