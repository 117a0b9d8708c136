package dev.polyhe.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ToLongFunction;

/**
 * What the operator sees of the store ({@code GET /admin}): per tenant its key sets, encrypted models, jobs by
 * state and the bytes it keeps; in all, the key sets and encrypted models stored and the jobs by state. Ids of key
 * sets and jobs are not listed: the counts are what a quota or a full disk needs.
 */
final class AdminView {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Owners owners;
    private final Owners modelOwners;
    private final KeyStore keys;
    private final ModelStore models;
    private final Jobs jobs;
    private final ToLongFunction<Tenant> storedBytes;

    AdminView(
            Owners owners,
            Owners modelOwners,
            KeyStore keys,
            ModelStore models,
            Jobs jobs,
            ToLongFunction<Tenant> storedBytes) {
        this.owners = owners;
        this.modelOwners = modelOwners;
        this.keys = keys;
        this.models = models;
        this.jobs = jobs;
        this.storedBytes = storedBytes;
    }

    ObjectNode toJson() {
        ObjectNode n = JSON.createObjectNode();
        n.put("key_sets_stored", keys.count());
        n.put("encrypted_models_stored", models.count());
        ObjectNode all = n.putObject("jobs");
        for (Job.State s : Job.State.values()) {
            all.put(name(s), 0);
        }
        Set<String> tenants = new TreeSet<>(owners.tenants());
        tenants.addAll(modelOwners.tenants());
        for (Job j : jobs.all()) {
            all.put(name(j.state()), all.get(name(j.state())).asLong() + 1);
            if (j.tenant != null) {
                tenants.add(j.tenant);
            }
        }
        ObjectNode byTenant = n.putObject("tenants");
        for (String name : tenants) {
            Tenant t;
            try {
                t = new Tenant(name, false, false);
            } catch (IllegalArgumentException e) {
                continue; // a folder in the store that no tenant could have made
            }
            ObjectNode tn = byTenant.putObject(name);
            tn.put("key_sets", owners.count(t));
            tn.put("encrypted_models", modelOwners.count(t));
            ObjectNode states = tn.putObject("jobs");
            for (Job.State s : Job.State.values()) {
                states.put(name(s), 0);
            }
            for (Job j : jobs.all()) {
                if (name.equals(j.tenant)) {
                    states.put(name(j.state()), states.get(name(j.state())).asLong() + 1);
                }
            }
            tn.put("bytes", storedBytes.applyAsLong(t));
        }
        return n;
    }

    private static String name(Job.State s) {
        return s.name().toLowerCase(Locale.ROOT);
    }
}
