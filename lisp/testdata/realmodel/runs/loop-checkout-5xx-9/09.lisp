(defn make-citation [record]
  {"evidence_id" (get record "evidence_id")
   "content_digest" (get record "content_digest")})

(defn find-record-by-id [id]
  (first (filter #(= (get % "evidence_id") id) record-infos)))

;; Key records for easy reference
(def deploy-2291 (find-record-by-id "deploy-2291"))
(def log-88120 (find-record-by-id "log-88120"))
(def log-88455 (find-record-by-id "log-88455"))
(def alert-4471 (find-record-by-id "alert-4471"))
(def alert-4472 (find-record-by-id "alert-4472"))
(def trace-5f21 (find-record-by-id "trace-5f21"))
(def log-90013 (find-record-by-id "log-90013"))
(def deploy-2292 (find-record-by-id "deploy-2292"))
(def chat-1180 (find-record-by-id "chat-1180"))
(def chat-1186 (find-record-by-id "chat-1186"))
(def chat-1204 (find-record-by-id "chat-1204"))

(println "Key records loaded")
nil)