package io.argus.pipeline.doctor;

/**
 * One line of {@code argus doctor}: what was found about a topic and, when something is to be done, what.
 *
 * @param topic what was checked, e.g. "FFmpeg"
 * @param found what was found, in words
 * @param fix what to do about it (a command where there is one); null when nothing is to be done
 */
public record Finding(Status status, String topic, String found, String fix) {
    public static Finding ok(String topic, String found) { return new Finding(Status.OK, topic, found, null); }

    public static Finding info(String topic, String found) { return new Finding(Status.INFO, topic, found, null); }

    public static Finding warn(String topic, String found, String fix) { return new Finding(Status.WARN, topic, found, fix); }

    public static Finding fail(String topic, String found, String fix) { return new Finding(Status.FAIL, topic, found, fix); }
}
