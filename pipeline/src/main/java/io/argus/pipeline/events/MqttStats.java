package io.argus.pipeline.events;

import io.vertx.core.json.JsonObject;

/**
 * What the MQTT output has done since it started, for Prometheus ({@link MqttMeters}) and REST.
 *
 * @param connected  connected to the broker now
 * @param published  PUBLISH packets written for events and counts, repeats after a reconnect included
 * @param confirmed  messages that left the outbox confirmed: PUBACK received (QoS 1) or written (QoS 0)
 * @param dropped    messages dropped because the outbox was full (the oldest go first)
 * @param resent     messages published again after a lost connection (possible duplicates for subscribers)
 * @param rejected   event-bus messages that could not become a PUBLISH (no cameraId, not JSON, ...)
 * @param reconnects connection attempts after the first
 * @param outbox     messages in the outbox now, waiting or in flight
 * @param inFlight   published on the current connection and not yet acknowledged
 */
public record MqttStats(boolean connected, long published, long confirmed, long dropped, long resent, long rejected,
                        long reconnects, int outbox, int inFlight) {

    public JsonObject toJson() {
        return new JsonObject().put("connected", connected).put("published", published).put("confirmed", confirmed)
                .put("dropped", dropped).put("resent", resent).put("rejected", rejected).put("reconnects", reconnects)
                .put("outbox", outbox).put("inFlight", inFlight);
    }
}
