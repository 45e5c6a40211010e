// The browser's own texts (connection, other window, completion code), in
// the seven languages simlab ships; every other text comes from the server
// in the study's language (its "strings"). Also the printf subset those
// strings use (%s, %d, %zu, %g, %.Nf, %+.Nf, %%).

const WEB = {
  en: {
    loading: "Loading…",
    offline: "The connection is lost. Your answers are kept on this device and sent as soon as it is back.",
    saving: "Saving…",
    other_title: "The study continues in another window",
    other_text: "You opened this study again in another window or tab. Close this one, or continue here.",
    continue_here: "Continue here",
    no_id_title: "This link is incomplete",
    no_id_text: "The link lacks your participant id. Please open the study again from the page where you found it.",
    error_title: "The study cannot be shown",
    code_title: "Your completion code",
    code_link: "Complete the study on the platform",
    copy: "Copy",
    copied: "Copied",
    wait_server: "Please wait a moment; your answer is being saved.",
  },
  de: {
    loading: "Wird geladen …",
    offline: "Die Verbindung ist unterbrochen. Ihre Antworten bleiben auf diesem Gerät und werden gesendet, sobald sie wieder besteht.",
    saving: "Wird gespeichert …",
    other_title: "Die Studie läuft in einem anderen Fenster weiter",
    other_text: "Sie haben diese Studie in einem anderen Fenster oder Tab erneut geöffnet. Schließen Sie dieses oder machen Sie hier weiter.",
    continue_here: "Hier weitermachen",
    no_id_title: "Dieser Link ist unvollständig",
    no_id_text: "Dem Link fehlt Ihre Teilnehmerkennung. Bitte öffnen Sie die Studie erneut von der Seite, auf der Sie sie gefunden haben.",
    error_title: "Die Studie kann nicht angezeigt werden",
    code_title: "Ihr Abschlusscode",
    code_link: "Studie auf der Plattform abschließen",
    copy: "Kopieren",
    copied: "Kopiert",
    wait_server: "Einen Moment bitte, Ihre Antwort wird gespeichert.",
  },
  fr: {
    loading: "Chargement…",
    offline: "La connexion est perdue. Vos réponses restent sur cet appareil et seront envoyées dès son retour.",
    saving: "Enregistrement…",
    other_title: "L'étude continue dans une autre fenêtre",
    other_text: "Vous avez rouvert cette étude dans une autre fenêtre ou un autre onglet. Fermez celle-ci, ou continuez ici.",
    continue_here: "Continuer ici",
    no_id_title: "Ce lien est incomplet",
    no_id_text: "Il manque votre identifiant de participant dans le lien. Veuillez rouvrir l'étude depuis la page où vous l'avez trouvée.",
    error_title: "L'étude ne peut pas être affichée",
    code_title: "Votre code de fin",
    code_link: "Terminer l'étude sur la plateforme",
    copy: "Copier",
    copied: "Copié",
    wait_server: "Un instant, votre réponse est enregistrée.",
  },
  es: {
    loading: "Cargando…",
    offline: "Se ha perdido la conexión. Sus respuestas se guardan en este dispositivo y se enviarán en cuanto vuelva.",
    saving: "Guardando…",
    other_title: "El estudio continúa en otra ventana",
    other_text: "Ha vuelto a abrir este estudio en otra ventana o pestaña. Cierre esta o continúe aquí.",
    continue_here: "Continuar aquí",
    no_id_title: "Este enlace está incompleto",
    no_id_text: "Al enlace le falta su identificador de participante. Vuelva a abrir el estudio desde la página donde lo encontró.",
    error_title: "No se puede mostrar el estudio",
    code_title: "Su código de finalización",
    code_link: "Completar el estudio en la plataforma",
    copy: "Copiar",
    copied: "Copiado",
    wait_server: "Un momento, se está guardando su respuesta.",
  },
  "zh-Hans": {
    loading: "正在加载…",
    offline: "连接已中断。您的回答保存在本设备上，连接恢复后会立即发送。",
    saving: "正在保存…",
    other_title: "研究在另一个窗口中继续",
    other_text: "您在另一个窗口或标签页中再次打开了本研究。请关闭此窗口，或在此继续。",
    continue_here: "在此继续",
    no_id_title: "此链接不完整",
    no_id_text: "链接中缺少您的参与者编号。请从您找到本研究的页面重新打开。",
    error_title: "无法显示本研究",
    code_title: "您的完成码",
    code_link: "在平台上完成本研究",
    copy: "复制",
    copied: "已复制",
    wait_server: "请稍候，正在保存您的回答。",
  },
  ja: {
    loading: "読み込み中…",
    offline: "接続が切れました。回答はこの端末に保存され、接続が戻りしだい送信されます。",
    saving: "保存中…",
    other_title: "この調査は別のウィンドウで続いています",
    other_text: "この調査を別のウィンドウまたはタブで開き直しました。こちらを閉じるか、ここで続けてください。",
    continue_here: "ここで続ける",
    no_id_title: "このリンクは不完全です",
    no_id_text: "リンクに参加者 ID がありません。調査を見つけたページからもう一度開いてください。",
    error_title: "調査を表示できません",
    code_title: "完了コード",
    code_link: "プラットフォームで調査を完了する",
    copy: "コピー",
    copied: "コピーしました",
    wait_server: "少々お待ちください。回答を保存しています。",
  },
  ar: {
    loading: "جارٍ التحميل…",
    offline: "انقطع الاتصال. تبقى إجاباتك محفوظة على هذا الجهاز وتُرسل فور عودته.",
    saving: "جارٍ الحفظ…",
    other_title: "تستمر الدراسة في نافذة أخرى",
    other_text: "لقد فتحت هذه الدراسة مرة أخرى في نافذة أو علامة تبويب أخرى. أغلق هذه النافذة أو تابع هنا.",
    continue_here: "تابع هنا",
    no_id_title: "هذا الرابط غير مكتمل",
    no_id_text: "ينقص الرابط معرّف المشارك الخاص بك. يُرجى فتح الدراسة مرة أخرى من الصفحة التي وجدتها فيها.",
    error_title: "لا يمكن عرض الدراسة",
    code_title: "رمز الإكمال الخاص بك",
    code_link: "أكمل الدراسة على المنصة",
    copy: "نسخ",
    copied: "تم النسخ",
    wait_server: "لحظة من فضلك، يجري حفظ إجابتك.",
  },
};

let lang = "en";
let strings = {};

// Sets the study's language (its tag, e.g. "de" or "zh-Hans") and the
// server's strings of that language.
export function setLanguage(tag, serverStrings) {
  lang = WEB[tag] ? tag : WEB[(tag || "").split("-")[0]] ? tag.split("-")[0] : "en";
  strings = serverStrings || {};
}

// A text of the browser's own.
export function w(key) {
  return (WEB[lang] && WEB[lang][key]) || WEB.en[key] || key;
}

// A text of the server's table ("continue", "item.model_output", ...).
export function t(key) {
  return strings[key] !== undefined ? strings[key] : key;
}

// printf with the conversions the string tables use.
export function fmt(format, ...args) {
  let i = 0;
  return String(format).replace(/%([+]?)(?:\.(\d+))?(zu|[sdgf%])/g, (m, plus, prec, conv) => {
    if (conv === "%") return "%";
    const a = args[i++];
    switch (conv) {
      case "s":
        return String(a);
      case "d":
      case "zu":
        return String(Math.trunc(Number(a)));
      case "g":
        return String(Number(a));
      case "f": {
        const s = Number(a).toFixed(prec === undefined ? 6 : Number(prec));
        return plus && Number(a) >= 0 ? "+" + s : s;
      }
    }
    return m;
  });
}
