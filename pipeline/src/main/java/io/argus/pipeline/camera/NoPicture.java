package io.argus.pipeline.camera;

/**
 * Why a connected camera has given no picture, in the words its status and log show: whether this is its first
 * picture or a stall after streaming, whether packets arrive at all, and the setting that bounds the wait. A camera
 * that sends packets but no picture for a while after connecting is almost always waiting for its first keyframe
 * (IP cameras send one every 4-10 s, and FFmpeg drops the one it read while probing the stream); one that sends
 * nothing is a network or camera matter, over UDP often a firewall that lets RTSP through but not RTP.
 */
record NoPicture(boolean first, long waitedMs, boolean packetsArrived, boolean udp) {

    String describe() {
        if (first) {
            String head = "no picture within " + waitedMs + " ms of connecting";
            if (packetsArrived) {
                return head + " though packets arrive: no keyframe yet (the camera's keyframe interval may be longer than"
                        + " camera.firstFrameTimeoutMs: raise it, or set a shorter I-frame interval on the camera),"
                        + " or the decoder cannot make pictures of the stream";
            }
            return head + ": no video packets arrived (the camera answered but sends nothing"
                    + (udp ? "; over UDP a firewall or NAT may drop its RTP packets: try transport: tcp" : "")
                    + "; camera.firstFrameTimeoutMs bounds this wait)";
        }
        String head = "no picture for " + waitedMs + " ms";
        if (packetsArrived) {
            return head + " though packets arrive: the decoder makes no picture of them (a damaged stream, or packets"
                    + " lost until the next keyframe; camera.stallTimeoutMs bounds this wait)";
        }
        return head + ": no video packets arrived (the camera or the network stopped sending; camera.stallTimeoutMs"
                + " bounds this wait)";
    }
}
