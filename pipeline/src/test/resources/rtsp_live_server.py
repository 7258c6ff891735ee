#!/usr/bin/python3
"""A live RTSP camera for tests: GStreamer's gst-rtsp-server encoding a test pattern as it is served, as an IP camera
does, at rtsp://127.0.0.1:PORT/CODEC/SECONDS: CODEC h264 (x264enc) or h265 (x265enc), a keyframe every SECONDS
(1, 4 or 10), 320x240 at 10 fps, over TCP or UDP (the client's choice). Each client gets its own encoder, which starts
with a keyframe, so the first picture a client can decode is deterministic: FFmpeg reads that keyframe while probing
the stream and (fflags nobuffer) drops it, so its first picture is the next keyframe, SECONDS later.
Usage: rtsp_live_server.py PORT. Prints READY once listening."""
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402

FPS = 10
ENCODERS = {
    "h264": "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=%d ! h264parse ! rtph264pay name=pay0 pt=96 config-interval=1",
    "h265": "x265enc tune=zerolatency speed-preset=ultrafast key-int-max=%d ! h265parse ! rtph265pay name=pay0 pt=96 config-interval=1",
}

Gst.init(None)
port = sys.argv[1]
server = GstRtspServer.RTSPServer()
server.set_address("127.0.0.1")
server.set_service(port)
for codec, encoder in ENCODERS.items():
    if Gst.ElementFactory.find(encoder.split()[0]) is None:
        print("no GStreamer element " + encoder.split()[0] + ": /" + codec + " not served", file=sys.stderr, flush=True)
        continue
    for seconds in (1, 4, 10):
        factory = GstRtspServer.RTSPMediaFactory()
        factory.set_launch("( videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=%d/1 "
                           "! videoconvert ! video/x-raw,format=I420 ! %s )" % (FPS, encoder % (seconds * FPS)))
        factory.set_shared(False)
        server.get_mount_points().add_factory("/%s/%d" % (codec, seconds), factory)
if server.attach(None) == 0:
    print("cannot listen on port " + port, flush=True)
    sys.exit(1)
print("READY", flush=True)
GLib.MainLoop().run()
